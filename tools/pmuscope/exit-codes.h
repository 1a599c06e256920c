/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: exit codes (Documentation/cli.rst, "Exit status"). */
#ifndef PMUSCOPE_EXIT_CODES_H
#define PMUSCOPE_EXIT_CODES_H

#define EXIT_USAGE		2
#define EXIT_UNSUPPORTED	3
#define EXIT_BUSY		4
#define EXIT_PERM		5
#define EXIT_DRIVER		6

/* Exit status for a failure of pmuscope_open(). */
int open_exit_code(int err);
/* Exit status for a negative errno of the library. */
int exit_code_of(int err);
/*
 * Exit status for a command whose exec failed with errno @err, the
 * shell's (POSIX): 127 not found (ENOENT), 126 found but not run (EACCES:
 * not executable, ENOEXEC, EISDIR, ETXTBSY, ...).
 */
int exec_exit_code(int err);

#endif
