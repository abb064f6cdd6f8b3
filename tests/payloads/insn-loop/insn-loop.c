// SPDX-License-Identifier: GPL-2.0
/*
 * insn-loop: a known number of instructions between the two markers of
 * vm/insn-count.c (the instruction-counting TCG plugin): N iterations of a
 * two-instruction loop (dec, jnz), so the plugin must count 2N and a few,
 * plus what interrupts ran meanwhile.
 *
 * usage: insn-loop N
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 2)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	if (!n)
		return 2;
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x4c410001\n"
		     "1:	dec %0\n"
		     "	jnz 1b\n"
		     ".byte 0x0f, 0x1f, 0x80; .long 0x4c410002\n"
		     : "+r" (n) : : "cc", "memory");
	return 0;
}
