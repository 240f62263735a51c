# experiments/ - the paper's runs and the tables and plots made from them
# (experiments/README.md gives the command for each). make demo and make
# demo-capture are in the top Makefile, make bench's drivers in the parts'
# fragments (experiments/userlib-bench.sh: userlib/userlib.mk).

# Equal accuracy over Table I's whole schedule, with and without error
# feedback (hours; writes a section of docs/results.md).
.PHONY: accuracy
accuracy: deps
	@$(MAKE) --no-print-directory $(BIN)/inc-train $(BIN)/inc-run
	@experiments/train-accuracy.sh

# Time to INC's final accuracy - 0.3 on the emulated cluster (root; needs
# make accuracy's HDC logs, runs the missing ones first).
.PHONY: time-to-accuracy
time-to-accuracy: deps
	@$(MAKE) --no-print-directory $(BIN)/inc-train $(BIN)/inc-run $(NIC_SWITCH)
	@experiments/train-time-to-accuracy.sh

# The HDC runs that chose the defaults (feedback, scaling policy and ratio),
# 3 seeds, and their table in docs/results.md (about 2 hours on 2 cores;
# finished runs kept in docs/results/defaults-hdc/).
.PHONY: defaults-hdc
defaults-hdc: deps
	@$(MAKE) --no-print-directory $(BIN)/inc-train $(BIN)/inc-run
	@experiments/defaults-hdc.py run
	@experiments/defaults-hdc.py table

# torchvision's resnet18 through DDP, the inceptionn hook (defaults, plain
# codec, the alternatives) and PyTorch's fp16 / PowerSGD hooks, 3 seeds each,
# whole schedules (hours on 2 cores; resumable: a finished run is kept in
# docs/results/torch/, a stopped one continues from its checkpoint), then
# the docs/results.md section and its plot.
.PHONY: accuracy-torch
accuracy-torch: deps
	@$(MAKE) --no-print-directory $(LIB)/libinceptionn.so
	@experiments/accuracy-torch.py run
	@experiments/accuracy-torch.py cluster
	@experiments/accuracy-torch.py table

.PHONY: reproduce
reproduce: deps
	@$(MAKE) --no-print-directory all $(NIC_SWITCH)
	@experiments/train-reproduce.sh

# The communication schedules side by side on the emulated cluster (long).
.PHONY: schedules
schedules:
	@$(MAKE) --no-print-directory all $(NIC_SWITCH)
	@experiments/train-schedules.sh

# Every codec side by side on the emulated cluster (long).
.PHONY: codecs
codecs:
	@$(MAKE) --no-print-directory all $(NIC_SWITCH)
	@experiments/train-codecs.sh
