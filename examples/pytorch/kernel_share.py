#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Print, for torchvision networks, what the hook's kernel_ratio="auto"
decides: the kernels' share (parameters of three or more dimensions:
convolutions) of the values of the parameters of two or more dimensions,
inceptionn.torch.kernel_share(model), against KERNEL_AUTO_SHARE
(inceptionn.torch.kernel_auto_target).

    PYTHONPATH=python /usr/bin/python3 examples/pytorch/kernel_share.py [ARCH...]

Without arguments, a list of common networks; each is built with
num_classes=10 (the head's size moves the share a little: Fashion-MNIST's
10 classes here, as in train_torchvision.py). Nothing is trained.
"""
import argparse
import sys

import torchvision.models as models

import inceptionn.torch as inct

ARCHS = ("alexnet", "vgg11", "vgg16", "resnet18", "resnet50", "squeezenet1_1", "densenet121",
         "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "shufflenet_v2_x1_0",
         "efficientnet_b0", "mnasnet1_0", "googlenet", "regnet_x_400mf", "convnext_tiny",
         "vit_b_16", "swin_t")


def build(arch):
    kw = dict(num_classes=10)
    if arch in ("googlenet", "inception_v3"):
        kw.update(aux_logits=False, init_weights=False)
    return getattr(models, arch)(**kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archs", nargs="*", default=ARCHS, help="torchvision model names")
    a = ap.parse_args()
    bad = [x for x in a.archs if not callable(getattr(models, x, None))]
    if bad:
        ap.error("not a torchvision model: %s" % " ".join(bad))
    print("| network | parameters | kernels' share | kernel_ratio=\"auto\" |")
    print("|---|---|---|---|")
    for arch in a.archs:
        net = build(arch)
        share, target = inct.kernel_share(net), inct.kernel_auto_target(net)
        n = sum(p.numel() for p in net.parameters())
        decision = ("on: the buckets mostly of kernels at target %g" % target if target else
                    "off" if share is not None else "off (no parameter of two dimensions)")
        print("| %s | %.1f M | %.1f %% | %s |" % (arch, n / 1e6, 100 * (share or 0), decision),
              flush=True)
        del net
    return 0


if __name__ == "__main__":
    sys.exit(main())
