/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the single-threaded guest test programs share (pmuscope-test,
 * pmuscope-soak, pmuscope-faults): TAP lines the host reads
 * (scripts/pmuscope_console.py), and small sysfs helpers. Each program
 * sets tap_tag, the name between the brackets, and exits non-zero when
 * tap_failures is.
 */
#ifndef PMUSCOPE_GUEST_H
#define PMUSCOPE_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *tap_tag = "";
static int tap_failures;

/* One result: "pmuscope-tap: ok - [tag] what" or "not ok". */
static void __attribute__((format(printf, 2, 3), unused)) tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("pmuscope-tap: %s - [%s] ", ok ? "ok" : "not ok", tap_tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failures++;
}

/* A comment line of the results, not a result. */
static void __attribute__((format(printf, 1, 2), unused)) diag(const char *fmt, ...)
{
	va_list ap;

	printf("pmuscope-tap: # ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Write @s to the file at @path: 0, or -errno. */
static int __attribute__((unused)) write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* The integer in the file at @path (a sysctl, a sysfs file); -1 if unreadable. */
static int __attribute__((unused)) read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* CPU @cpu offline (@on 0) or online: 0, or -1. */
static int __attribute__((unused)) set_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, on ? "1" : "0") ? -1 : 0;
}

#endif /* PMUSCOPE_GUEST_H */
