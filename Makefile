# SPDX-License-Identifier: GPL-2.0
#
# pmuscope top-level Makefile.
#
#   make                 build pmuscope.ko for arm64 against the cached test
#                        kernel (built on first use), or against KDIR=...
#   make KDIR=<board kernel build dir> [ARCH=arm64 CROSS_COMPILE=...]
#   make check           set-up, kernel, module, lint, KUnit and in-guest tests
#   make test T=NAME     one test of tests/registry alone (U=UNIT, B=BOOT)
#   make debian-kernels  the module against Debian's own 6.12 and 6.1, booted
#   make demo            boot the AM62L-like guest and show what was found
#   make lint            sparse (C=2) and checkpatch --strict, zero findings
#   make regs            regenerate the register code from pmuscope_regs.tbl
#   make events          regenerate the per-core event tables from perf's JSON
#   make install         the module (modules_install) and the tools, man pages,
#                        bash completion under $(DESTDIR)$(PREFIX); make uninstall
#
# When invoked by Kbuild (KERNELRELEASE set) this file only includes Kbuild.

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

ARCH ?= arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
export ARCH CROSS_COMPILE

# Empty KDIR: use (and if needed build) the cached test kernel.
KDIR ?=
KBUILD_ARGS = M=$(CURDIR) ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) W=1

.PHONY: all module kunit-module compat-6.1 debian-kernels tools setup kernel lint check test demo bench profile clean host-test regs events metrics faults
.PHONY: install uninstall install-module uninstall-module install-tools uninstall-tools
.PHONY: man completion dkms-source help

# `make` alone builds the module (the README's board build): help, the
# first rule below, is not the default.
.DEFAULT_GOAL := all

# make help: every target with its "## " text (the list is the rules' own).
help: ## this list
	@echo 'make [target] [KDIR=...] [ARCH=arm64 CROSS_COMPILE=...]'
	@sed -n 's/^\([a-z0-9.-]*\):.*## \(.*\)$$/  \1\t\2/p' $(firstword $(MAKEFILE_LIST)) | expand -t 20

all: module ## the module (the default): pmuscope.ko for arm64

module: ## pmuscope.ko against the cached test kernel, or KDIR=<kernel build dir>
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh) || exit 1; \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) modules

# pmuscope.ko plus pmuscope_kunit.ko (the driver against the register model).
kunit-module: ## pmuscope.ko, pmuscope_kunit.ko (KUnit) and the test modules
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh) || exit 1; \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) PMUSCOPE_KUNIT=1 modules

# The same module against Debian's linux-source-6.1 (cached like 6.12).
# Built in build/compat-6.1 (a copy of the sources), with the test modules.
# sparse (C=2) too: the code only 6.1 compiles (pmuscope_ppmu.c's pin).
compat-6.1: ## the modules against Linux 6.1 (build/compat-6.1), W=1, sparse
	@kdir=$$(PMUSCOPE_KVER=6.1 scripts/build-kernel.sh) || exit 1; \
	rm -rf build/compat-6.1 && mkdir -p build/compat-6.1 && \
	cp -r Kbuild drivers include tests build/compat-6.1/ && \
	$(MAKE) -C "$$kdir" M=$(CURDIR)/build/compat-6.1 ARCH=$(ARCH) \
		CROSS_COMPILE=$(CROSS_COMPILE) W=1 C=2 CHECK=sparse PMUSCOPE_KUNIT=1 modules

# Debian's signed 6.12 and 6.1 kernels (scripts/debian-kernel.sh: cached
# download), pmuscope.ko built against their headers, each booted as
# shipped with its tests of tests/registry (make check's debian-6.12 and
# debian-6.1).
debian-kernels: ## Debian's 6.12 and 6.1 kernels: the module against their headers, booted
	@python3 tests/run.py B=debian-6.12 && python3 tests/run.py B=debian-6.1

# libpmuscope and the pmuscope CLI, native and static arm64 (tools/build).
tools: ## libpmuscope and the pmuscope CLI, native and static arm64
	@$(MAKE) --no-print-directory -C tools

setup: ## install what the tests need (apt-get)
	@scripts/setup.sh

kernel: ## build (or find cached) the test kernel; prints its directory
	@scripts/build-kernel.sh

lint: ## sparse C=2, checkpatch --strict and the generated-file checks
	@scripts/lint.sh

# Regenerate the register code from drivers/pmuscope_regs.tbl.
regs: ## regenerate the register code from drivers/pmuscope_regs.tbl
	@scripts/gen-regs.py

# Regenerate include/pmuscope_core_events.h from perf's pmu-events JSON.
events: ## regenerate the per-core event tables from perf's pmu-events JSON
	@scripts/gen-pmu-events.py

# Regenerate stat's metric table from perf's pmu-events JSON.
metrics: ## regenerate tools/pmuscope/metrics-table.h from perf's JSON
	@scripts/gen-pmu-metrics.py

host-test: ## the host unit tests (python unittest)
	@python3 -m unittest discover -s tests/host -p 'test_*.py'

check: ## the whole test suite (what CI runs); ends "N passed, N failed"
	@scripts/check.sh

# One test, a unit's or a boot's, from tests/registry (tests/run.py):
#   make test T=record [B=max-exact]   make test U=record   make test B=a53
test: ## one test alone: T=NAME [B=BOOT], a unit's: U=UNIT, a boot's: B=BOOT
	@python3 tests/run.py $(if $(T),T=$(T)) $(if $(U),U=$(U)) $(if $(B),B=$(B))

demo: ## boot the AM62L-like guest and show what pmuscope finds
	@scripts/demo.sh

# The module-load fault scan whole (every site, about 8 minutes, debug kernel);
# make check takes 150 s of it from a site chosen from the commit.
faults: ## the whole module-load fault-injection scan (debug kernel)
	@scripts/gate-build.sh >/dev/null && scripts/run-guest.sh --kernel debug --mem 1G --smp 2 \
		--initrd build/initramfs-gate.cpio --cpu cortex-a53 --plan faults --timeout 900 \
		--log build/logs/guest-faults.log; \
		python3 scripts/pmuscope_console.py build/logs/guest-faults.log faults

# Cost of the interfaces in guest instructions (QEMU -icount shift=0).
profile: ## cost of the interfaces in guest instructions (OPS=...)
	@scripts/profile.sh $(OPS)

bench: ## the benchmarks: guest instruction counts beside perf
	@scripts/bench.sh

# ------------------------------------------------------------- packaging
# make install [DESTDIR=...] [PREFIX=...] [TOOLS_ARCH=arm64|host] [KDIR=...]
#   the module: the kernel build's modules_install (INSTALL_MOD_PATH=
#   $(DESTDIR)) into $(DESTDIR)/lib/modules/RELEASE/$(INSTALL_MOD_DIR)
#   (depmod runs only without DESTDIR: a package runs it when installed);
#   the tools: pmuscope, libpmuscope.a and .so (soname libpmuscope.so.0),
#   the headers pmuscope.h and linux/pmuscope.h, the man pages (make man)
#   and the bash completion (make completion), under $(DESTDIR)$(PREFIX).
#   TOOLS_ARCH: which build of tools/ to install, arm64 (static, from
#   tools/build/arm64) or host (tools/build/host); default arm64, host on an
#   arm64 machine. install-module and install-tools do one half each.
# make uninstall: the same variables; removes what install put.
PREFIX ?= /usr/local
DESTDIR ?=
PYTHON ?= python3
HOST_ARCH := $(shell uname -m)
TOOLS_ARCH ?= $(if $(filter aarch64 arm64,$(HOST_ARCH)),host,arm64)
INSTALL_MOD_DIR ?= updates
DKMS_SRCDIR ?= /usr/src
VERSION := $(shell sed -n 's/^[#]define[[:space:]]*PMUSCOPE_DRV_VERSION[[:space:]]*"\(.*\)"/\1/p' drivers/pmuscope.h)
LIB_VERSION := $(shell sed -n 's/^[#]define[[:space:]]*PMUSCOPE_LIB_VERSION[[:space:]]*"\(.*\)"/\1/p' tools/lib/pmuscope.h)
bindir = $(PREFIX)/bin
libdir = $(PREFIX)/lib
includedir = $(PREFIX)/include
man1dir = $(PREFIX)/share/man/man1
bashcompdir = $(PREFIX)/share/bash-completion/completions
TOOLS_BUILD = tools/build/$(TOOLS_ARCH)
# The kernel build directory and its release, for the module's targets.
# The release is the one modules_install installs under (MODLIB, from
# $(KERNELRELEASE)): a built tree reads it from include/config/kernel.release,
# but Debian's linux-headers override it in .kernelvariables (6.1.0-57-arm64,
# while include/config/kernel.release says 6.1.192). In both, UTS_RELEASE
# in include/generated/utsrelease.h is that $(KERNELRELEASE) (kbuild
# generates it from it), and it is the module's vermagic: take it from there.
KDIR_AND_RELEASE = kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh) || exit 1; \
	rel=$$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' "$$kdir/include/generated/utsrelease.h" \
		2>/dev/null); \
	[ -n "$$rel" ] || { echo "$$kdir: no UTS_RELEASE in include/generated/utsrelease.h" >&2; exit 1; }; \
	dir="$(DESTDIR)/lib/modules/$$rel/$(INSTALL_MOD_DIR)"

install: install-module install-tools ## the module and the tools (DESTDIR, PREFIX, TOOLS_ARCH, KDIR)

uninstall: uninstall-module uninstall-tools ## remove what install put

# `module` first: it rewrites modules.order with pmuscope.ko alone, which is
# what modules_install installs (never the test modules of kunit-module).
install-module: module ## the module only (modules_install)
	@$(KDIR_AND_RELEASE); \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) INSTALL_MOD_PATH="$(DESTDIR)" \
		INSTALL_MOD_DIR="$(INSTALL_MOD_DIR)" $(if $(DESTDIR),DEPMOD=true) modules_install || exit 1; \
	ls "$$dir"/pmuscope.ko* >/dev/null 2>&1 || \
		{ echo "modules_install did not put pmuscope.ko in $$dir" >&2; exit 1; }

# Fails when there is no pmuscope.ko where install-module puts it: a
# release or INSTALL_MOD_DIR other than install's would otherwise leave the
# installed module behind and exit 0.
uninstall-module: ## remove the installed module
	@$(KDIR_AND_RELEASE); n=0; \
	for f in pmuscope.ko pmuscope.ko.gz pmuscope.ko.xz pmuscope.ko.zst; do \
		if [ -e "$$dir/$$f" ]; then echo "rm $$dir/$$f"; rm -f "$$dir/$$f" || exit 1; n=$$((n + 1)); fi; \
	done; \
	if [ $$n = 0 ]; then \
		echo "uninstall-module: no pmuscope.ko in $$dir (release $$rel, from" \
			"$$kdir/include/generated/utsrelease.h): not installed there" >&2; exit 1; \
	fi; \
	if [ -z "$(DESTDIR)" ] && [ -f "/lib/modules/$$rel/modules.dep" ]; then depmod -a "$$rel"; fi

install-tools: man completion ## the CLI, library, headers, man pages and completion
	@$(if $(filter arm64 host,$(TOOLS_ARCH)),:,$(error TOOLS_ARCH=$(TOOLS_ARCH): arm64 or host))
	@$(MAKE) --no-print-directory -C tools build/$(TOOLS_ARCH)/pmuscope \
		build/$(TOOLS_ARCH)/libpmuscope.a build/$(TOOLS_ARCH)/libpmuscope.so
	install -d "$(DESTDIR)$(bindir)" "$(DESTDIR)$(libdir)" "$(DESTDIR)$(includedir)/linux" \
		"$(DESTDIR)$(man1dir)" "$(DESTDIR)$(bashcompdir)"
	install -m 755 $(TOOLS_BUILD)/pmuscope "$(DESTDIR)$(bindir)/pmuscope"
	install -m 644 $(TOOLS_BUILD)/libpmuscope.a "$(DESTDIR)$(libdir)/libpmuscope.a"
	install -m 644 $(TOOLS_BUILD)/libpmuscope.so "$(DESTDIR)$(libdir)/libpmuscope.so.$(LIB_VERSION)"
	ln -sfn libpmuscope.so.$(LIB_VERSION) "$(DESTDIR)$(libdir)/libpmuscope.so.0"
	ln -sfn libpmuscope.so.0 "$(DESTDIR)$(libdir)/libpmuscope.so"
	install -m 644 tools/lib/pmuscope.h "$(DESTDIR)$(includedir)/pmuscope.h"
	install -m 644 include/uapi/linux/pmuscope.h "$(DESTDIR)$(includedir)/linux/pmuscope.h"
	install -m 644 build/man/*.1 "$(DESTDIR)$(man1dir)/"
	install -m 644 build/completion/pmuscope "$(DESTDIR)$(bashcompdir)/pmuscope"
	@if [ -z "$(DESTDIR)" ]; then ldconfig 2>/dev/null || :; fi

uninstall-tools: ## remove the installed tools
	rm -f "$(DESTDIR)$(bindir)/pmuscope" "$(DESTDIR)$(libdir)/libpmuscope.a" \
		"$(DESTDIR)$(libdir)/libpmuscope.so" "$(DESTDIR)$(libdir)/libpmuscope.so.0" \
		"$(DESTDIR)$(libdir)"/libpmuscope.so.[0-9]*.[0-9]*.[0-9]* \
		"$(DESTDIR)$(includedir)/pmuscope.h" "$(DESTDIR)$(includedir)/linux/pmuscope.h" \
		"$(DESTDIR)$(man1dir)/pmuscope.1" "$(DESTDIR)$(man1dir)"/pmuscope-*.1 \
		"$(DESTDIR)$(bashcompdir)/pmuscope"
	@if [ -z "$(DESTDIR)" ]; then ldconfig 2>/dev/null || :; fi

# Man pages from Documentation/cli.rst (docutils): pmuscope(1) and one per
# subcommand, pmuscope-<sub>(1), in build/man.
man: ## man pages into build/man
	@$(PYTHON) scripts/gen-man.py --out build/man

# The bash completion, its tables from the host pmuscope --list-cmds and
# --list-opts (scripts/gen-completion.py makes tools/build/host/pmuscope).
completion: ## bash completion into build/completion/pmuscope
	@$(PYTHON) scripts/gen-completion.py --out build/completion/pmuscope

# The module's sources and dkms.conf in $(DESTDIR)$(DKMS_SRCDIR)/pmuscope-VERSION,
# for `dkms install pmuscope/VERSION` (README.md, "Packaging").
DKMS_FILES = dkms.conf Kbuild LICENSE $(wildcard drivers/*.[ch] drivers/*.tbl) \
	$(wildcard include/*.h include/uapi/linux/*.h)
dkms-source: ## the module sources for DKMS under DKMS_SRCDIR (/usr/src)
	@[ -n "$(VERSION)" ] || { echo "no PMUSCOPE_DRV_VERSION in drivers/pmuscope.h" >&2; exit 1; }; \
	dst="$(DESTDIR)$(DKMS_SRCDIR)/pmuscope-$(VERSION)"; rm -rf "$$dst" && \
	for f in $(DKMS_FILES); do install -D -m 644 "$$f" "$$dst/$$f" || exit 1; done && \
	echo "$$dst: $(words $(DKMS_FILES)) files"

clean: ## remove every build output
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh 2>/dev/null) && \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) PMUSCOPE_KUNIT=1 clean; \
	rm -rf build; $(MAKE) -C tools clean

endif
