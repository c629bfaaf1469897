# gomokud - build, test and benchmark.
#
#   make            build everything under build/ (gcc by default; make CC=clang)
#   make run        build and start the server on config/gomokud.conf
#   make test       unit and integration tests, then the same under ASan+UBSan
#   make bench      engine benchmarks (medians of several runs)
#   make clean
#
# Targets that need Debian packages install them first (scripts/deps.sh).

ifeq ($(origin CC),default)
CC := gcc
endif

BUILD ?= build
WARN := -Wall -Wextra -Werror
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# -O3: the same search about 10% faster than -O2 (the depth-9 bench's time,
# alternated runs, identical signature); -flto and profile-guided builds
# added nothing measurable on top, clang -O3 was 3-5% slower than gcc's.
OPT ?= -O3
CFLAGS_ALL = $(CSTD) $(OPT) $(WARN) -MMD -MP -I. $(EXTRA_CFLAGS)
LDLIBS_ALL = -lm $(EXTRA_LDLIBS)
LIBS_SERVER = -lmicrohttpd -lcjson -lpthread
# Board pictures (server/render.c): cairo draws, giflib codes the animations.
LIBS_RENDER = -lcairo -lgif

ENGINE_SRC := $(wildcard engine/*.c)
API_SRC := $(wildcard api/*.c)
SERVER_MAINS := server/main.c server/pbrain_main.c
SERVER_SRC := $(filter-out $(SERVER_MAINS),$(wildcard server/*.c))
TEST_SRC := $(wildcard tests/test_*.c) tests/support.c tests/http_client.c

objs = $(patsubst %.c,$(BUILD)/%.o,$(1))
ENGINE_LIB = $(BUILD)/libengine.a
API_LIB = $(BUILD)/libapi.a
SERVER_LIB = $(BUILD)/libserver.a
OPENAPI_C = $(BUILD)/gen/openapi_doc.c
OPENAPI_OBJ = $(BUILD)/gen/openapi_doc.o
BOOK_C = $(BUILD)/gen/book_data.c
BOOK_OBJ = $(BUILD)/gen/book_data.o

GOMOKUD = $(BUILD)/bin/gomokud
PBRAIN = $(BUILD)/bin/pbrain-gomokud
BENCH_CORE = $(BUILD)/bin/bench-core
TRAIN_EVAL = $(BUILD)/bin/train-eval
GEN_DATA = $(BUILD)/bin/gen-data
MAKE_BOOK = $(BUILD)/bin/make-book
UNIT = $(BUILD)/bin/unit-tests
EMBED_FILES = $(BUILD)/bin/embed-files

# The board page (web/) is compiled into the server: tools/embed_files.c
# writes its files as C arrays into $(BUILD)/gen/web_assets.c.
WEB_FILES := $(sort $(wildcard web/*.html web/*.js web/*.css web/*.svg web/*.png web/*.ico))
WEB_ASSETS_OBJ = $(BUILD)/gen/web_assets.o

ALL_OBJ = $(call objs,$(ENGINE_SRC) $(API_SRC) $(SERVER_SRC) $(wildcard $(SERVER_MAINS)) $(TEST_SRC) tools/bench_core.c tools/train_eval.c tools/gen_data.c tools/make_book.c tools/embed_files.c) $(WEB_ASSETS_OBJ)

.PHONY: all deps build run test test-unit test-asan bench clean clang selfplay-data train calibrate-levels

all: deps
	$(MAKE) --no-print-directory build

build: $(GOMOKUD) $(PBRAIN) $(BENCH_CORE) $(TRAIN_EVAL) $(GEN_DATA) $(MAKE_BOOK)

deps:
	@scripts/deps.sh build

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(ENGINE_LIB): $(call objs,$(ENGINE_SRC))
	@rm -f $@
	ar rcs $@ $^

$(API_LIB): $(call objs,$(API_SRC))
	@rm -f $@
	ar rcs $@ $^

$(SERVER_LIB): $(call objs,$(SERVER_SRC)) $(OPENAPI_OBJ) $(WEB_ASSETS_OBJ) $(BOOK_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The OpenAPI document (api/openapi.json) built in as a C array, served at
# GET /v1/openapi.json.
$(OPENAPI_C): api/openapi.json scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh openapi_doc api/openapi.json server/openapi.h > $@.tmp && mv $@.tmp $@

$(OPENAPI_OBJ): $(OPENAPI_C)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# The opening book (config/book.txt, made by make book) built in the same way:
# book_file = "builtin" (the default) and pbrain-gomokud use it.
$(BOOK_C): config/book.txt scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh book_data config/book.txt server/book.h > $@.tmp && mv $@.tmp $@

$(BOOK_OBJ): $(BOOK_C)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(GOMOKUD): $(BUILD)/server/main.o $(SERVER_LIB) $(API_LIB) $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LIBS_SERVER) $(LIBS_RENDER) $(LDLIBS_ALL)

$(PBRAIN): $(BUILD)/server/pbrain_main.o $(BUILD)/server/book.o $(BOOK_OBJ) $(API_LIB) $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LIBS_SERVER) $(LDLIBS_ALL)

$(TRAIN_EVAL): $(BUILD)/tools/train_eval.o $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

$(GEN_DATA): $(BUILD)/tools/gen_data.o $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

$(MAKE_BOOK): $(BUILD)/tools/make_book.o $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

$(EMBED_FILES): $(BUILD)/tools/embed_files.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@

$(BUILD)/gen/web_assets.c: $(EMBED_FILES) $(WEB_FILES) $(BUILD)/gen/web_files.list
	@mkdir -p $(dir $@)
	$(EMBED_FILES) $@ $(WEB_FILES)

# Rewritten only when the set of files changes, so a removed file is noticed.
$(BUILD)/gen/web_files.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(WEB_FILES)' | cmp -s - $@ || echo '$(WEB_FILES)' > $@

.PHONY: FORCE
FORCE:

$(WEB_ASSETS_OBJ): $(BUILD)/gen/web_assets.c
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BENCH_CORE): $(BUILD)/tools/bench_core.o $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

$(UNIT): $(call objs,$(TEST_SRC)) $(SERVER_LIB) $(API_LIB) $(ENGINE_LIB) $(GOMOKUD) $(PBRAIN) $(GEN_DATA) $(TRAIN_EVAL) $(MAKE_BOOK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(filter %.o %.a,$^) -o $@ -lcriterion -lcurl $(LIBS_SERVER) $(LIBS_RENDER) $(LDLIBS_ALL)

# The evaluation's data and fit (see README, "Training the evaluation").
# The games are not committed; the tables the fit writes are.
SELFPLAY_DIR ?= data/selfplay
TRAIN_ARGS ?=
TRAIN_FILES ?= $(SELFPLAY_DIR)/*.games
selfplay-data: deps
	$(MAKE) --no-print-directory $(GEN_DATA)
	GEN_DATA=$(GEN_DATA) SELFPLAY_DIR=$(SELFPLAY_DIR) tools/selfplay_data.sh

train: deps
	$(MAKE) --no-print-directory $(TRAIN_EVAL)
	$(TRAIN_EVAL) --out engine/eval_tables.c $(TRAIN_ARGS) $(TRAIN_FILES)
	$(MAKE) --no-print-directory build

# The opening book (README, "The opening book"): per rule, the early tree
# from the centre opening, each position searched with a fixed node budget
# (deterministic). Written to config/book.txt, committed, built into gomokud
# and pbrain-gomokud. About 10 minutes on one core.
BOOK_FILE ?= config/book.txt
BOOK_ARGS ?= --nodes 1000000 --stones 5 --margin 60
.PHONY: book
book: deps
	$(MAKE) --no-print-directory $(MAKE_BOOK)
	$(MAKE_BOOK) $(BOOK_ARGS) --out $(BOOK_FILE).tmp
	mv $(BOOK_FILE).tmp $(BOOK_FILE)

# The play levels' Elo ladder (docs/levels.md; see tools/calibrate_levels.sh for
# LEVEL_GAMES, LEVEL_TOP_MS). The binary and script are copied first, so that
# rebuilding during the run changes nothing. About 20 minutes on one core.
calibrate-levels: deps
	$(MAKE) --no-print-directory $(GOMOKUD)
	@mkdir -p $(BUILD)/calibrate
	cp $(GOMOKUD) tools/calibrate_levels.sh $(BUILD)/calibrate/
	LEVEL_LOG=$(BUILD)/calibrate-levels.log sh $(BUILD)/calibrate/calibrate_levels.sh $(BUILD)/calibrate/gomokud

run: deps
	$(MAKE) --no-print-directory $(GOMOKUD)
	$(GOMOKUD) --config config/gomokud.conf

# The tests, plain and under the sanitizers (separate build trees), the two
# passes side by side: the sanitizer build and its slow tail overlap the
# plain pass, which waits on sockets more than it computes (6m17s in a row,
# 5m36s side by side, on a 2-core machine). Each pass's output is printed
# whole when it ends. Tests find the binaries through GOMOKUD_BIN_DIR.
test:
	@scripts/deps.sh test
	$(MAKE) --no-print-directory test-deploy
	$(MAKE) --no-print-directory test-tools
	$(MAKE) --no-print-directory -j2 --output-sync=recurse test-unit test-asan

test-unit: $(UNIT)
	GOMOKUD_BIN_DIR=$(BUILD)/bin GOMOKUD_DATA_DIR=$(DATA_DIR) $(UNIT) --jobs 2

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
test-asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/asan OPT="-O1 -g" \
	    EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDLIBS="$(SAN_FLAGS)" test-unit

# The match tools (tools/match.sh, tools/match_score.py) against a stand-in
# for the match runner; no engine is played (about a second).
.PHONY: test-tools
test-tools:
	tests/tools/run.sh

# Test positions (tactics.jsonl).
DATA_DIR ?= tests/data

bench: deps
	$(MAKE) --no-print-directory $(BENCH_CORE) $(GOMOKUD)
	$(BENCH_CORE)
	$(GOMOKUD) bench
	$(GOMOKUD) bench tactics --file $(DATA_DIR)/tactics.jsonl

# HTTP layer on loopback (wrk): depth-1 requests/s and p50/p99 at 1, 16 and
# 64 keep-alive connections, and what HTTP adds to a 100 ms search.
.PHONY: bench-server
bench-server: deps
	@scripts/deps.sh bench
	$(MAKE) --no-print-directory $(GOMOKUD)
	tools/bench_server.sh $(GOMOKUD)

# The board page in headless chromium (tests/web/run.sh): installs chromium
# (Debian) and playwright-core (npm, into $(BUILD)/web-tools) when missing.
.PHONY: test-web
test-web: deps
	@scripts/deps.sh web
	$(MAKE) --no-print-directory $(GOMOKUD)
	WEB_TOOLS_DIR=$(BUILD)/web-tools WEB_OUT_DIR=$(BUILD) tests/web/run.sh $(GOMOKUD)

# Warnings-as-errors build with clang as well.
clang:
	@scripts/deps.sh clang
	$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/clang build $(BUILD)/clang/bin/unit-tests

clean:
	rm -rf $(BUILD)

-include $(ALL_OBJ:.o=.d) $(OPENAPI_OBJ:.o=.d) $(BOOK_OBJ:.o=.d)

# ---- fuzzing -------------------------------------------------------------------
# libFuzzer harnesses (fuzz/README.md) for the JSON request parser and
# validator, the move parsers and the pbrain command reader, built with clang
# under ASan+UBSan into $(BUILD)/fuzz. `make fuzz` runs each, one after the
# other, for FUZZ_SECONDS on its seed corpus fuzz/corpus/<name>; new inputs
# go to $(BUILD)/fuzz/corpus-<name>, crashes to $(BUILD)/fuzz/artifacts/.
# `make fuzz-merge` adds the new inputs that reach new edges to the seed corpus.
# Not part of `make test`: tests/test_fuzz_regressions.c replays the corpus.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS ?=
FUZZ_DIR = $(BUILD)/fuzz
FUZZ_NAMES := request move pbrain
FUZZ_MAX_LEN_request := 8192
FUZZ_MAX_LEN_move := 64
FUZZ_MAX_LEN_pbrain := 8192
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(CSTD) -O1 -g $(WARN) -MMD -MP -I. $(FUZZ_SAN)
FUZZ_OBJ = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(ENGINE_SRC) $(API_SRC) $(wildcard fuzz/fuzz_*.c))
FUZZ_LIB_OBJ = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(ENGINE_SRC) $(API_SRC))
FUZZ_BINS = $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_RUN = mkdir -p $(FUZZ_DIR)/corpus-$(1) $(FUZZ_DIR)/artifacts && \
    $(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN_$(1)) \
    -dict=fuzz/$(1).dict -timeout=10 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)- \
    $(FUZZ_FLAGS) $(FUZZ_DIR)/corpus-$(1) fuzz/corpus/$(1)
FUZZ_MERGE = $(FUZZ_DIR)/fuzz_$(1) -merge=1 -use_counters=0 -max_len=$(FUZZ_MAX_LEN_$(1)) fuzz/corpus/$(1) $(FUZZ_DIR)/corpus-$(1)

.PHONY: fuzz fuzz-build fuzz-merge

$(FUZZ_OBJ): $(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BINS): $(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ -lcjson -lpthread -lm

fuzz-build:
	@scripts/deps.sh fuzz
	$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	$(foreach h,$(FUZZ_NAMES),$(call FUZZ_RUN,$(h)) && ) true

fuzz-merge: fuzz-build
	$(foreach h,$(FUZZ_NAMES),$(call FUZZ_MERGE,$(h)) && ) true

-include $(FUZZ_OBJ:.o=.d)

# ---- overload and soak (loopback, bounded; tools/loadtest.sh) ------------------
# `make loadtest`: ~10x worker capacity for LOADTEST_SECONDS (60) with wrk,
# /livez polled and RSS sampled, then a SIGTERM mid-burst; `make soak`:
# SOAK_REQUESTS (100000) mixed requests and hang-ups, RSS at the end checked.
.PHONY: loadtest soak
loadtest: deps
	@scripts/deps.sh bench
	$(MAKE) --no-print-directory $(GOMOKUD)
	tools/loadtest.sh load $(GOMOKUD)

soak: deps
	@scripts/deps.sh bench
	$(MAKE) --no-print-directory $(GOMOKUD)
	tools/loadtest.sh soak $(GOMOKUD)

# ---- deployment (deploy/, README "Running in production") ---------------------
# `make docker-test`: the image from docker/Dockerfile (classic builder), run:
# /livez, one analysis, a drain on `docker stop`; starts dockerd when none
# runs and makes the Debian base with debootstrap when it cannot be pulled.
# `make scale-test`: 3 replicas behind nginx (deploy/nginx/) under wrk, one
# SIGTERMed and restarted mid-load, then a rolling restart: no failed request.
# Neither is part of `make test` (they need docker and nginx); the manifests'
# check (test-deploy) is.
.PHONY: docker-test scale-test test-deploy
docker-test:
	@scripts/deps.sh docker
	deploy/docker-test.sh

scale-test: deps
	@scripts/deps.sh scale
	$(MAKE) --no-print-directory $(GOMOKUD)
	deploy/scale-test.sh $(GOMOKUD)

# The Kubernetes manifests against the server's routes, port, drain time,
# sizing and labels, then the server started once with the pods' settings
# (deploy/check_k8s.py; about a second). /usr/bin/python3: Debian's, which
# sees python3-yaml whatever python3 is first on PATH.
test-deploy:
	@scripts/deps.sh test
	$(MAKE) --no-print-directory $(GOMOKUD)
	/usr/bin/python3 deploy/check_k8s.py --bin $(GOMOKUD)
