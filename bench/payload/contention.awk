# Wait time by lock and caller from `trace-cmd report` of the events
# lock:contention_begin and lock:contention_end recorded with -T (a kernel
# stack after each event).  A waiter's wait is end minus begin on one task;
# its lock is the begin's address, named from /proc/kallsyms (the first
# file) when it is a static lock such as inode_hash_lock; its caller is the
# first stack frame outside the locking and tracing code.
# usage: awk -f contention.awk /proc/kallsyms REPORT.txt
# Output: "waits total_wait_s max_wait_s lock caller", most total wait first
# (unsorted here; the payload sorts).
NR == FNR { sym["0x" $1] = $3; next }
/^ *=> / {
	if (cur != "" && !(cur in caller)) {
		f = $2
		if (f !~ /^(trace_|perf_|__traceiter|__bpf|queued_|native_queued|__pv_queued|pv_queued|_raw_|do_raw_|__raw_|lock_acquire|lock_contended|__mutex|mutex_|__rt_mutex|rwsem|__down|down_|up_|osq_|rwbase|queued_read|queued_write|contention|preempt_|__lock_|lock_)/)
			caller[cur] = f
	}
	next
}
/ kernel_stack: / { next }  # its "=>" lines follow: cur stays
/ contention_begin: / {
	task = $1; t = $3; sub(/:$/, "", t)
	for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/) { addr = $i; break }
	begin[task] = t; lock[task] = (addr in sym) ? sym[addr] : addr
	delete caller[task]
	cur = task
	next
}
/ contention_end: / {
	task = $1; t = $3; sub(/:$/, "", t)
	if (task in begin) {
		w = t - begin[task]
		k = lock[task] " " ((task in caller) ? caller[task] : "?")
		n[k]++; total[k] += w; if (w > most[k]) most[k] = w
		delete begin[task]
	}
	cur = ""
	next
}
{ cur = "" }
END { for (k in n) printf "%d %.6f %.6f %s\n", n[k], total[k], most[k], k }
