# SPDX-License-Identifier: GPL-2.0
#
# pmuscope top-level Makefile.
#
#   make                 build pmuscope.ko for arm64 against the cached test
#                        kernel (built on first use), or against KDIR=...
#   make KDIR=<board kernel build dir> [ARCH=arm64 CROSS_COMPILE=...]
#   make check           set-up, kernel, module, lint, KUnit and in-guest tests
#   make demo            boot the AM62L-like guest and show what was found
#   make lint            sparse (C=2) and checkpatch --strict, zero findings
#   make regs            regenerate the register code from pmuscope_regs.tbl
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

.PHONY: all module kunit-module compat-6.1 tools setup kernel lint check demo bench profile clean host-test regs

all: module

module:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh) || exit 1; \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) modules

# pmuscope.ko plus pmuscope_kunit.ko (the driver against the register model).
kunit-module:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh) || exit 1; \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) PMUSCOPE_KUNIT=1 modules

# The same module against Debian's linux-source-6.1 (cached like 6.12).
# Built in build/compat-6.1 (a copy of the sources), with the test modules.
compat-6.1:
	@kdir=$$(PMUSCOPE_KVER=6.1 scripts/build-kernel.sh) || exit 1; \
	rm -rf build/compat-6.1 && mkdir -p build/compat-6.1 && \
	cp -r Kbuild drivers include tests build/compat-6.1/ && \
	$(MAKE) -C "$$kdir" M=$(CURDIR)/build/compat-6.1 ARCH=$(ARCH) \
		CROSS_COMPILE=$(CROSS_COMPILE) W=1 PMUSCOPE_KUNIT=1 modules

# libpmuscope and the pmuscope CLI, native and static arm64 (tools/build).
tools:
	@$(MAKE) --no-print-directory -C tools

setup:
	@scripts/setup.sh

kernel:
	@scripts/build-kernel.sh

lint:
	@scripts/lint.sh

# Regenerate the register code from drivers/pmuscope_regs.tbl.
regs:
	@scripts/gen-regs.py

host-test:
	@python3 -m unittest discover -s tests/host -p 'test_*.py'

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

# Cost of the interfaces in guest instructions (QEMU -icount shift=0).
profile:
	@scripts/profile.sh $(OPS)

bench:
	@scripts/bench.sh

clean:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/build-kernel.sh 2>/dev/null) && \
	$(MAKE) -C "$$kdir" $(KBUILD_ARGS) PMUSCOPE_KUNIT=1 clean; \
	rm -rf build; $(MAKE) -C tools clean

endif
