locktorture.torture_type=six_relock locktorture.stall_secs=5 lab.hung_task_secs=4
