locktorture.torture_type=six_nested locktorture.stall_secs=5 locktorture.quiet_secs=1 locktorture.quiet_wait_ms=1000 lab.hung_task_secs=4
