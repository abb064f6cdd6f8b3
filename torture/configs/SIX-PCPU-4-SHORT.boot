locktorture.torture_type=six_lock_pcpu locktorture.long_hold=0 locktorture.stall_secs=5 lab.hung_task_secs=4
