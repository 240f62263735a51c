# python/ - the inceptionn package: libinceptionn.so through ctypes, and the
# PyTorch DDP communication hook (inceptionn.torch). Nothing to compile:
# after `make`, PYTHONPATH=python finds the package and the package finds
# build/lib/libinceptionn.so. docs/pytorch.md.
#
#   make install PREFIX=P   also installs P/lib/python3/dist-packages/inceptionn/,
#                           its _config.py naming P/lib/libinceptionn.so.0
#   make test-python        python/tests/python-tests.sh (suite python)

PY_SRCS := $(filter-out python/inceptionn/_config.py,$(wildcard python/inceptionn/*.py))
PY_DEST  = $(PREFIX)/lib/python3/dist-packages/inceptionn

.PHONY: install-python test-python

install: install-python

install-python: $(LIB)/libinceptionn.so
	install -d $(PY_DEST)
	install -m 644 $(PY_SRCS) $(PY_DEST)/
	printf '# SPDX-License-Identifier: MIT\n"""Written by make install."""\nLIBRARY = "%s"\n' \
	    '$(abspath $(PREFIX))/lib/$(UL_SONAME)' > $(PY_DEST)/_config.py
	@echo "installed the inceptionn Python package into $(PY_DEST)"

# What install-python wrote, and the byte code Python wrote beside it.
.PHONY: uninstall-python
uninstall: uninstall-python
uninstall-python:
	rm -f $(addprefix $(PY_DEST)/,$(notdir $(PY_SRCS)) _config.py)
	rm -rf $(PY_DEST)/__pycache__
	rmdir $(PY_DEST) 2>/dev/null || true

test-python: $(LIB)/libinceptionn.so $(LIB)/libinceptionn.a $(BIN)/inc-run $(BIN)/inc-train \
	     $(UL_TEST)/nic-switch
	python/tests/python-tests.sh

SUITES_python += python
DESC_python := the ctypes binding, the DDP hook against the C trainer, make install, nic mode (root)

# inceptionn._launch: the INC_* environment against the process group
# (torch.py calls check_env before the hook's communicator is made).
.PHONY: test-python-launch
test-python-launch: $(LIB)/libinceptionn.so
	/usr/bin/python3 python/tests/launch_check.py
SUITES_python += python-launch
DESC_python-launch := INC_RANK/INC_WORLD_SIZE/INC_MASTER_PORT against the process group: contradictions named
