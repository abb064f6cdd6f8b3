// SPDX-License-Identifier: GPL-2.0
/*
 * lab-exit: end the guest and hand an exit code to the host.
 *
 * QEMU's isa-debug-exit device (iobase 0xf4) makes QEMU exit with status
 * (value << 1) | 1 when the guest writes value to its port, so the host gets
 * the payload's exit code on a channel of its own, not by parsing the console.
 *
 * usage: lab-exit CODE    (0..127)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (code < 0 || code > 127)
		code = 127;
	sync();
	if (ioperm(DEBUG_EXIT_PORT, 4, 1)) {
		perror("lab-exit: ioperm");
		return 1;
	}
	outl(code, DEBUG_EXIT_PORT);
	fprintf(stderr, "lab-exit: QEMU has no isa-debug-exit device\n");
	return 1;
}
