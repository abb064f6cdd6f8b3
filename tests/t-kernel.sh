#!/bin/sh
# Test group "kernel": the torture flavour builds with every option it asks
# for, contains the series' code, and rebuilds in seconds when nothing changed.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

out=$LAB_BUILD/out/torture
check "the torture flavour builds" "$LAB_ROOT/vm/build-kernel.sh" torture
[ -r "$out/arch/x86/boot/bzImage" ] || { fail "no bzImage after the build"; exit 0; }

expect_grep "^debian_source_version=$(debian_source_version)\$" "$out/lab-build.env" \
	"the build records the Debian package version of its source"
check "the .config has every option the torture fragments ask for" \
	"$LAB_ROOT/vm/check-config.sh" "$out/.config" "$LAB_ROOT"/vm/kconfig/common.config \
	"$LAB_ROOT"/vm/kconfig/series.config "$LAB_ROOT"/vm/kconfig/torture.config

# Negative controls for the config check: an option Kconfig dropped, and one
# whose "is not set" is contradicted.
frag=$TEST_OUT/unmet.config
echo 'CONFIG_LAB_NO_SUCH_OPTION=y' >"$frag"
expect_exit 1 "negative control: an option missing from .config is reported" \
	"$LAB_ROOT/vm/check-config.sh" "$out/.config" "$frag"
echo '# CONFIG_PROVE_LOCKING is not set' >"$frag"
expect_exit 1 "negative control: an option set against its fragment is reported" \
	"$LAB_ROOT/vm/check-config.sh" "$out/.config" "$frag"

# The series' code is in the image, not only in the tree.
for sym in six_lock_intent six_relock_read six_trylock_write lockdep_set_no_check_recursion \
	lock_class_is_held closure_sub mean_and_variance_weighted_update \
	__genradix_iter_peek_prev copy_folio_from_iter_atomic; do
	expect_grep " $sym\$" "$out/System.map" "the torture kernel has $sym"
done
for mod in locktorture torture; do
	[ -n "$(find "$out/modroot" -name "$mod.ko")" ] && pass "module $mod.ko is installed for the initramfs" ||
		fail "module $mod.ko is missing under $out/modroot"
done

# An unchanged flavour: no object is compiled again and the image is kept;
# build-kernel.sh does not even run make (its .lab-built key matches; that
# make itself finds nothing to do is checked by the mutants group, whose
# killed build ends in one more make with LAB_BUILD_MAKE=1).
before=$(stat -c %Y "$out/arch/x86/boot/bzImage")
t0=$(date +%s)
"$LAB_ROOT/vm/build-kernel.sh" torture >"$TEST_OUT/rebuild.log" 2>&1
t1=$(date +%s)
if grep -q 'done (0 objects compiled).*up to date' "$TEST_OUT/rebuild.log" &&
	[ "$(stat -c %Y "$out/arch/x86/boot/bzImage")" = "$before" ]; then
	pass "rebuilding the unchanged torture flavour runs no make and compiles nothing ($((t1 - t0)) s)"
else
	fail "rebuilding the unchanged torture flavour did not find it up to date; see $TEST_OUT/rebuild.log"
fi
# Negative control: an output file that changed after the build (an object
# newer than what was linked from it) makes the next build run make.
obj=$(find "$out/kernel/locking" -name 'locktorture.o' | head -n 1)
if [ -n "$obj" ]; then
	touch "$obj"
	"$LAB_ROOT/vm/build-kernel.sh" torture >"$TEST_OUT/rebuild-touched.log" 2>&1
	grep -q 'done (' "$TEST_OUT/rebuild-touched.log" && ! grep -q 'up to date' "$TEST_OUT/rebuild-touched.log" &&
		pass "negative control: an object touched after the build makes the next build run make" ||
		fail "a build whose output changed was taken as up to date; see $TEST_OUT/rebuild-touched.log"
else
	fail "no kernel/locking/locktorture.o in $out to touch"
fi
end_of_group
