lab.torture=inode brd.rd_nr=1 brd.rd_size=65536 ihash_entries=16 inode_hash_race_udelay=200 lab.hung_task_secs=20
