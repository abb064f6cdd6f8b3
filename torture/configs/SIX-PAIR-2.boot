locktorture.torture_type=six_lock locktorture.nreaders_stress=1 locktorture.nwriters_stress=1 locktorture.nintents_stress=0 locktorture.stall_secs=5 lab.hung_task_secs=4
