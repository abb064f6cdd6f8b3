"""Published hardware numbers that the lab's projection is held against,
with their sources.  Data, not findings: each is quoted from its source."""

# Dave Chinner, "[PATCH 3/3] vfs: inode cache conversion to hash-bl",
# 6 April 2021 (Message-Id 20210406123343.1739669-4-david@fromorbit.com):
# "32-way concurrent create of 51.2m inodes with fsmark" on 5.10, ext4,
# files/s per thread count.  The machine is not described; its profile's
# __pv_queued_spin_lock_slowpath says a paravirtualised (KVM) guest.
CHINNER_2021 = {
    "cite": "Chinner, \"vfs: inode cache conversion to hash-bl\", 6 April 2021 (fs_mark, ext4, 5.10)",
    "threads": [2, 4, 8, 16, 32],
    "global": [117e3, 185e3, 303e3, 389e3, 360e3],
    "hashbl": [112e3, 190e3, 346e3, 465e3, 437e3],
}

# The profile in patch 22's message (the same posting): 32-way create on
# ext4, the global lock: 29.92% of samples in insert_inode_locked, 24.97%
# of all samples spinning (__pv_queued_spin_lock_slowpath) under it.
CHINNER_2021_SPIN_32 = 0.2497
CHINNER_2021_INSERT_32 = 0.2992

# Dave Chinner, "[PATCH 0/11] vfs: inode cache scalability improvements",
# 6 December 2023: "For ext4 and bcachefs, the inode_hash_lock becomes a
# limiting factor at 8 threads"; at ~16 threads on XFS "the
# sb->s_inode_list_lock becomes a single point of contention".
CHINNER_2023_LIMIT_THREADS = 8
CHINNER_2023_CITE = ("Chinner, \"vfs: inode cache scalability improvements\", 6 December 2023: "
                     "\"the inode_hash_lock becomes a limiting factor at 8 threads\"")

# Mateusz Guzik, 20 October 2023: 20 processes stat()ing trees of their own,
# 70.55 s with the global lock, 35.05 s with hash-bl.
GUZIK_2023 = {"cite": "Guzik, 20 October 2023 (20-process stat walk)", "threads": 20,
              "global_s": 70.55, "hashbl_s": 35.05}

# The cost of moving a modified cache line to another core on the same die
# of an Intel Xeon E7-8867L (Westmere-EX, 2.13 GHz): 109 cycles for a load,
# 120 for a compare-and-swap (T. David, R. Guerraoui, V. Trigonakis,
# "Everything you always wanted to know about synchronization but were
# afraid to ask", SOSP 2013, Table 2; 289-400 cycles across sockets).
# The model's tau: one such transfer of the lock's line per handoff.
LINE_TRANSFER_NS = 120 / 2.13
LINE_TRANSFER_CITE = ("David, Guerraoui and Trigonakis, SOSP 2013, Table 2: a compare-and-swap on a line "
                      "modified by another core of the same die, 120 cycles at 2.13 GHz (%.0f ns)"
                      % (120 / 2.13))


def gain(threads):
    """Chinner's hash-bl gain at a thread count: hashbl/global - 1."""
    i = CHINNER_2021["threads"].index(threads)
    return CHINNER_2021["hashbl"][i] / CHINNER_2021["global"][i] - 1
