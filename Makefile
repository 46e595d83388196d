# Pond's build. `make setup` once (installs and builds the native parts into the cache), then
# `make build`, `make test`, `make bench`: no hand-set environment needed.
SHELL := bash
.DEFAULT_GOAL := build

POND_CACHE := $(shell bash -c 'source scripts/lib.sh && echo "$$POND_CACHE"')
NATIVE_DIR := $(shell scripts/native.sh dir 2>/dev/null)
ORT_VERSION := $(shell bash -c 'source scripts/lib.sh && echo "$$ORT_VERSION"')

# cgo finds Pond's native library (Lance + pond-native) and its headers here; the packages that
# use it name the archive itself (-l:libpond_native.a), so nothing else links it.
export CGO_CFLAGS := -O2 -I$(NATIVE_DIR)/include
export CGO_LDFLAGS := -L$(NATIVE_DIR) -Wl,-z,noexecstack
export POND_TEST_MODEL_DIR ?= $(POND_CACHE)/models/test-model
export POND_ONNXRUNTIME_LIB ?= $(POND_CACHE)/onnxruntime/$(ORT_VERSION)/libonnxruntime.so.1
# moto's S3 server for the object-storage tests (scripts/moto-venv.sh; make setup installs it).
export POND_MOTO_SERVER ?= $(shell scripts/moto-venv.sh path 2>/dev/null)/bin/moto_server

GO_TAGS := sqlite_fts5
# make test PKGS=./store/... runs a subset.
PKGS ?= ./...
# make bench BENCH=Search runs the benchmarks matching a pattern.
BENCH ?= .
GO := go
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION) -X main.nativeDir=$(NATIVE_DIR)

.PHONY: run setup cross build build-headless release test bench bench-sync verify-agents tray-smoke native-check fmt vet clean print-env

# Sets up what is missing, then starts the tray (or, with no desktop session, the daemon).
run:
	@scripts/run.sh

setup:
	@scripts/setup.sh

native-check:
	@scripts/native.sh verify

build: native-check
	$(GO) build -tags $(GO_TAGS) -ldflags '$(LDFLAGS)' -o bin/pond .

# A pond without the desktop app, for machines with no GL or X libraries (servers, CI images).
build-headless: native-check
	$(GO) build -tags $(GO_TAGS),headless -ldflags '$(LDFLAGS)' -o bin/pond .

# What a user downloads: dist/pond-<version>-linux-<arch>.tar.xz (scripts/release.sh).
release: native-check
	@scripts/release.sh

# The desktop app end to end under Xvfb and a private D-Bus (xvfb, dbus, imagemagick).
tray-smoke: build
	scripts/tray-smoke.sh bin/pond

test: native-check
	scripts/cross.sh
	$(GO) vet -tags $(GO_TAGS) $(PKGS)
	$(GO) test -tags $(GO_TAGS) -count=1 -timeout 30m $(PKGS)

# The packages without cgo vet and build for macOS and Windows (make test runs it first).
cross:
	scripts/cross.sh

# Resume restored sessions with the agents' own code (installed from npm into the cache).
verify-agents: native-check
	scripts/verify-agents.sh

bench: native-check
	$(GO) test -tags $(GO_TAGS) -run '^$$' -bench '$(BENCH)' -benchmem -timeout 0 $(PKGS)

# Issue 4's whole-process sync benchmark (five formats, cold and warm): scripts/bench-sync.sh.
bench-sync: native-check
	scripts/bench-sync.sh

fmt:
	gofmt -l -w .

clean:
	rm -rf bin

# For scripts/go: the environment above as shell exports.
print-env:
	@echo "export CGO_CFLAGS='$(CGO_CFLAGS)' CGO_LDFLAGS='$(CGO_LDFLAGS)' POND_TEST_MODEL_DIR='$(POND_TEST_MODEL_DIR)' POND_ONNXRUNTIME_LIB='$(POND_ONNXRUNTIME_LIB)' POND_MOTO_SERVER='$(POND_MOTO_SERVER)' GOFLAGS='-tags=$(GO_TAGS)'"
