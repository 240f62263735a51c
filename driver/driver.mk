# driver/ - the kernel module inceptionn.ko and its test in a real kernel
# under QEMU (suite driver-qemu). See driver/README.md and docs/driver.md.
#
#   make driver             build against the running kernel's headers when
#                           installed, else Debian's linux-headers-amd64
#   make test-driver-qemu   boot each installed Debian kernel in QEMU (TCG) and
#                           test there (6.1 and 6.12 after make deps)

DRV_SRCS := $(wildcard driver/*.c driver/*.h) driver/Kbuild
# Debian's newest linux-headers-*-amd64: the kernel the QEMU test boots.
DRV_DEB_KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
DRV_DEB_KREL := $(patsubst /usr/src/linux-headers-%,%,$(DRV_DEB_KDIR))
DRV_RUN_KREL := $(shell uname -r)
DRV_KREL := $(if $(wildcard /lib/modules/$(DRV_RUN_KREL)/build/Makefile),$(DRV_RUN_KREL),$(DRV_DEB_KREL))
# The kernels the QEMU suite boots: every Debian release with both its
# headers and its image installed, oldest first.
drv_rel = $(patsubst /usr/src/linux-headers-%,%,$(1))
DRV_VM_KRELS := $(sort $(foreach d,$(wildcard /usr/src/linux-headers-*-amd64),\
	$(if $(wildcard /boot/vmlinuz-$(call drv_rel,$(d))),$(call drv_rel,$(d)))))
# Headers of kernel release $(1).
drv_kdir = $(patsubst %/Makefile,%,$(firstword $(wildcard \
	/lib/modules/$(1)/build/Makefile /usr/src/linux-headers-$(1)/Makefile)))

# build/driver/<release>/inceptionn.ko, built in build/driver/<release>/src.
$(BUILD)/driver/%/inceptionn.ko: $(DRV_SRCS) $(MODEL_SRCS) $(MODEL_HDRS)
	@test -n "$(call drv_kdir,$*)" || { echo "driver: no kernel headers for $* (apt-get install linux-headers-amd64)"; exit 1; }
	@mkdir -p $(@D)/src/model
	@for f in $(DRV_SRCS); do ln -sfn $(CURDIR)/$$f $(@D)/src/; done
	@for f in $(MODEL_SRCS); do ln -sfn $(CURDIR)/$$f $(@D)/src/model/; done
	@ln -sfn $(CURDIR)/sw-model/include $(@D)/src/include
	nice $(MAKE) --no-print-directory -C $(call drv_kdir,$*) M=$(abspath $(@D)/src) modules
	cp $(@D)/src/inceptionn.ko $@

.PHONY: driver
driver: $(BUILD)/driver/$(DRV_KREL)/inceptionn.ko
	@echo "driver: $< (kernel $(DRV_KREL))"

# Static programs that run inside the VM (glibc static, model linked in).
DRV_VM_BIN := $(BUILD)/driver/vm
DRV_VM_PROGS := $(DRV_VM_BIN)/inc-vm-tcp $(DRV_VM_BIN)/inc-vm-inject
$(DRV_VM_BIN)/inc-vm-%: driver/tests/inc_vm_%.c driver/tests/inc_vm.h tests/common/inc_framegen.c \
		tests/common/inc_framegen.h $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/common -static -o $@ $< tests/common/inc_framegen.c $(LIB)/libincmodel.a

.PHONY: test-driver-qemu
test-driver-qemu: $(foreach k,$(DRV_VM_KRELS),$(BUILD)/driver/$(k)/inceptionn.ko) $(DRV_VM_PROGS)
	@driver/tests/qemu-driver-kernels.sh "$(DRV_VM_KRELS)" $(BUILD)/driver $(DRV_VM_BIN)

SUITES_driver += driver-qemu
DESC_driver-qemu := inceptionn.ko in each installed Debian kernel under QEMU (TCG): the tests of driver/tests

# Plain `make` builds the module too when kernel headers are installed
# (a few seconds); otherwise only `make driver` / the test need them.
ifneq ($(call drv_kdir,$(DRV_KREL)),)
ALL_TARGETS += $(BUILD)/driver/$(DRV_KREL)/inceptionn.ko
endif
