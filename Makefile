# gomokud - build, test and benchmark.
#
#   make            build everything under build/ (gcc by default; make CC=clang)
#   make test       unit tests, then the same tests under ASan+UBSan
#   make bench      engine benchmarks (medians of several runs)
#   make clean
#
# Targets that need Debian packages install them first (scripts/deps.sh).

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif

BUILD ?= build
WARN := -Wall -Wextra -Werror
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L
OPT ?= -O2
CFLAGS_ALL = $(CSTD) $(OPT) $(WARN) -MMD -MP -I. $(EXTRA_CFLAGS)
LDLIBS_ALL = -lm $(EXTRA_LDLIBS)

ENGINE_SRC := $(wildcard engine/*.c)
TEST_SRC := $(wildcard tests/test_*.c) tests/support.c

ENGINE_OBJ = $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

BENCH_CORE = $(BUILD)/bin/bench-core
UNIT = $(BUILD)/bin/unit-tests

.PHONY: all deps test test-unit test-asan bench clean clang

all: deps $(BENCH_CORE)

deps:
	@scripts/deps.sh build

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libengine.a: $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BENCH_CORE): $(BUILD)/tools/bench_core.o $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

$(UNIT): $(TEST_OBJ) $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL) -lcriterion

# The tests, plain and then under the sanitizers (separate build trees).
test:
	@scripts/deps.sh test
	$(MAKE) --no-print-directory test-unit
	$(MAKE) --no-print-directory test-asan

test-unit: $(UNIT)
	$(UNIT) --jobs 2

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
test-asan:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/asan OPT="-O1 -g" \
	    EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDLIBS="$(SAN_FLAGS)" test-unit

bench: deps $(BENCH_CORE)
	$(BENCH_CORE)

# Warnings-as-errors build with clang as well.
clang:
	@scripts/deps.sh clang
	$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/clang all $(UNIT)

clean:
	rm -rf $(BUILD)

-include $(ENGINE_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tools/bench_core.d
