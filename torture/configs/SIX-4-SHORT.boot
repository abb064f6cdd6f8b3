locktorture.torture_type=six_lock locktorture.long_hold=0 locktorture.stall_secs=5 lab.hung_task_secs=4
