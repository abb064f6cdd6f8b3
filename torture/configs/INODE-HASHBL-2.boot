lab.torture=inode brd.rd_nr=1 brd.rd_size=65536 ihash_entries=16 inode_hash_race_udelay=200 lab.hung_task_secs=20 softlockup_panic=1 sysctl.kernel.panic_on_rcu_stall=1 sysctl.kernel.hung_task_panic=1
