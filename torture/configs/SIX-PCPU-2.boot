locktorture.torture_type=six_lock_pcpu locktorture.onoff_interval=3 locktorture.onoff_holdoff=2 locktorture.stall_secs=5 locktorture.quiet_secs=1 locktorture.quiet_wait_ms=1000 lab.hung_task_secs=4
