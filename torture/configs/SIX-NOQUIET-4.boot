locktorture.torture_type=six_lock locktorture.stall_secs=5 locktorture.quiet_secs=0 lab.hung_task_secs=4
