// SPDX-License-Identifier: GPL-2.0
/* pmuscope CLI: the exit status of a library or driver failure. */
#define _GNU_SOURCE
#include <errno.h>

#include "exit-codes.h"

/* Exit status for a failure of pmuscope_open(). */
int open_exit_code(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
	case -EPROTO:
		return EXIT_DRIVER;
	case -EPERM:
	case -EACCES:
		return EXIT_PERM;
	default:
		return 1;
	}
}

int exit_code_of(int err)
{
	switch (err) {
	case -EINVAL:
	case -ENOENT:
		return EXIT_USAGE;
	case -EOPNOTSUPP:
		return EXIT_UNSUPPORTED;
	case -EBUSY:
	case -ENOSPC:
		return EXIT_BUSY;
	case -EPERM:
	case -EACCES:
		return EXIT_PERM;
	default:
		return 1;
	}
}

int exec_exit_code(int err)
{
	return err == ENOENT ? 127 : 126;
}
