# Top-level driver: builds the patched FFmpeg in build/ffmpeg, the stock peer
# in build/stock, and runs the tests, benchmarks and demo.

TOP    := $(CURDIR)
BUILD  := $(TOP)/build
FFB    := $(BUILD)/ffmpeg
JOBS   ?= $(shell nproc)
PREFIX ?= /usr/local

# ccache shares objects between clones of this repo on one machine
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1

FFMAKE = $(MAKE) -C $(FFB) -j$(JOBS) V=$(V)

.PHONY: all ffmpeg pc stock check check-asan fuzz fuzz-rtcp fuzz-rtp fuzz-rtcp-sender bench bench-rtcp demo \
        install clean distclean sync

all: ffmpeg

# rerun configure, with the arguments it was last given, when it or the
# patches change
$(BUILD)/.stamp-configure: configure $(wildcard patches/*/*.patch patches/*/series) scripts/lean-components.txt
	./configure $(shell cat $(BUILD)/configure.args 2>/dev/null)

sync: $(BUILD)/.stamp-configure
	@scripts/sync-ext $(TOP) $(BUILD)/src

ffmpeg: sync
	+$(FFMAKE) ffmpeg ffprobe

# pkg-config files for programs built against the build tree, without
# make install: FFmpeg's uninstalled ones (doc/examples/pc-uninstalled),
# with the build directory's generated headers (avconfig.h) added to the
# include path, in build/pkgconfig. pkg-config takes NAME-uninstalled.pc
# for NAME:  PKG_CONFIG_PATH=build/pkgconfig pkg-config --libs libavformat
PC_LIBS = avutil swresample swscale avcodec avformat avfilter avdevice
pc: ffmpeg
	+$(FFMAKE) $(foreach l,$(PC_LIBS),$(if $(wildcard $(FFB)/lib$(l)),lib$(l)/lib$(l).pc))
	@mkdir -p $(BUILD)/pkgconfig
	@for f in $(FFB)/doc/examples/pc-uninstalled/*-uninstalled.pc; do \
	    sed -e 's|^libdir=\$${pcfiledir}/../../..|libdir=$(FFB)|' \
	        -e 's|^Cflags: -I\$${includedir}$$|Cflags: -I$${includedir} -I$(FFB)|' \
	        "$$f" > $(BUILD)/pkgconfig/$$(basename "$$f"); \
	done
	@echo "build/pkgconfig: $$(cd $(BUILD)/pkgconfig && ls | tr '\n' ' ')"

stock: $(BUILD)/.stamp-configure
	+scripts/build-stock $(BUILD) $(JOBS)

include tests/Makefile

# The prefix is FFmpeg's configure's: it is written into the pkg-config
# files and the binaries, so a PREFIX given here alone would install files
# that point elsewhere. Refuse it, before building anything, unless it is
# the configured one.
CONFIGURED_PREFIX = $(shell sed -n 's/^PREFIX := //p' $(BUILD)/config.mk 2>/dev/null)
ifneq ($(filter install,$(MAKECMDGOALS)),)
ifeq ($(origin PREFIX),command line)
ifneq ($(abspath $(PREFIX)),$(CONFIGURED_PREFIX))
$(error PREFIX=$(PREFIX) is not the configured prefix ($(or $(CONFIGURED_PREFIX),none yet)): run ./configure --prefix=$(abspath $(PREFIX)) first, then make install)
endif
endif
endif
install: ffmpeg
	+$(FFMAKE) install

clean:
	-$(MAKE) -C $(FFB) clean
	rm -rf $(BUILD)/tests

distclean:
	rm -rf $(BUILD)
