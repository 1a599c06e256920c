# SPDX-License-Identifier: GPL-2.0
# The perf SPE source (pmuscope/spe_perf.c) and its host test; a fragment
# of tools/Makefile (B, CC, CROSS_COMPILE, CFLAGS come from there):
#
#   make -C tools -f Makefile -f spe_perf.mk build/host/test_spe_perf
#   build/host/test_spe_perf      (from tools/: PASS/FAIL lines, exit 1 on a failure)
#   make -C tools -f Makefile -f spe_perf.mk build/arm64/spe_perf.o  (static arm64 check)
#
# To put the source into the CLI, in tools/Makefile (or `include spe_perf.mk`
# there and keep these lines here):
#   CLI_SRC += pmuscope/spe_perf.c
#   HDRS += pmuscope/spe_perf.h pmuscope/spe_source.h
# spe_perf.c needs nothing beyond libc (no -l), builds with -static, and
# defines spe_source_perf (spe_source.h).

SPE_PERF_SRC := pmuscope/spe_perf.c
SPE_PERF_HDRS := pmuscope/spe_perf.h pmuscope/spe_source.h ../include/uapi/linux/pmuscope.h

.PHONY: spe_perf_test spe_perf_check

$(B)/host/test_spe_perf: ../tests/tools/test_spe_perf.c $(SPE_PERF_SRC) $(SPE_PERF_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ ../tests/tools/test_spe_perf.c $(SPE_PERF_SRC)

$(B)/arm64/spe_perf.o: $(SPE_PERF_SRC) $(SPE_PERF_HDRS)
	@mkdir -p $(@D)
	$(CROSS_COMPILE)gcc $(CFLAGS) -static -c -o $@ $(SPE_PERF_SRC)

# The test, linked statically for arm64 (runs under qemu-aarch64 or a board).
$(B)/arm64/test_spe_perf: ../tests/tools/test_spe_perf.c $(SPE_PERF_SRC) $(SPE_PERF_HDRS)
	@mkdir -p $(@D)
	$(CROSS_COMPILE)gcc $(CFLAGS) -static -o $@ ../tests/tools/test_spe_perf.c $(SPE_PERF_SRC)

spe_perf_test: $(B)/host/test_spe_perf
	$(B)/host/test_spe_perf

spe_perf_check: spe_perf_test $(B)/arm64/spe_perf.o $(B)/arm64/test_spe_perf
