#!/usr/bin/awk -f
# Turn KTAP (KUnit's results, from debugfs or a console log) into one line per
# test case: "PASS suite.case", "FAIL suite.case" or "SKIP suite.case".
# usage: awk -f vm/ktap.awk FILE...
# Console timestamps ("[    1.234567] ") are stripped.  A "# Subtest:" line
# stands at the indentation of its children; a result line is a case unless
# children were listed under it.
{
	line = $0
	sub(/^\[[ 0-9.]+\] /, "", line)
	match(line, /^ */)
	indent = RLENGTH
	body = substr(line, indent + 1)
}
body ~ /^# Subtest: / {
	name[indent] = substr(body, 12)
	next
}
body ~ /^(not )?ok [0-9]+ / {
	# The summary line of a (sub)test whose children were listed one level
	# deeper is not a case of its own.
	if ((indent + 4) in name) {
		delete name[indent + 4]
		next
	}
	verdict = body ~ /^ok / ? "PASS" : "FAIL"
	if (body ~ /# SKIP/)
		verdict = "SKIP"
	c = body
	sub(/^(not )?ok [0-9]+ (- )?/, "", c)
	sub(/ *#.*$/, "", c)
	# The subtests announced at this indentation or less name the case.
	prefix = ""
	for (i = 0; i <= indent; i++)
		if (i in name)
			prefix = prefix name[i] "."
	print verdict, prefix c
}
