"""The detector's network (PyTorch) and its export to ONNX for OpenCV's dnn and onnxruntime.

A small fully convolutional net of depthwise-separable blocks (MobileNet style) with a light
feature pyramid: strides 2, 4, 8, 16, then back up to stride 4, where 1x1 heads give, per cell,
the heat logit, 7 class logits (faces 1-6, not readable), the log top-face side in cells and the
centre's offset in the cell (sigmoid in decoding). Grey-scale input, values 0-1. Only Conv,
BatchNorm (folded at export), ReLU, Add and nearest Resize: what OpenCV 4.6's dnn reads.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.detector import N_CLASSES

OUT_CHANNELS = 1 + N_CLASSES + 1 + 2


def _cbr(cin: int, cout: int, k: int = 1, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Sequential:
    pad = dilation * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SepBlock(nn.Module):
    """Depthwise 3x3 then pointwise 1x1; a residual add when the shape is kept."""

    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1):
        super().__init__()
        self.dw = _cbr(cin, cin, 3, stride, groups=cin, dilation=dilation)
        self.pw = _cbr(cin, cout, 1)
        self.res = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pw(self.dw(x))
        return x + y if self.res else y


class DiceNet(nn.Module):
    def __init__(self, width: tuple[int, int, int, int] = (16, 32, 64, 96)):
        super().__init__()
        c1, c2, c3, c4 = width
        self.stem = _cbr(1, c1, 3, 2)  # /2
        self.s4 = nn.Sequential(SepBlock(c1, c2, 2), SepBlock(c2, c2))  # /4
        self.s8 = nn.Sequential(SepBlock(c2, c3, 2), SepBlock(c3, c3), SepBlock(c3, c3))  # /8
        self.s16 = nn.Sequential(SepBlock(c3, c4, 2), SepBlock(c4, c4), SepBlock(c4, c4, dilation=2))  # /16
        self.lat16 = _cbr(c4, c3)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.m8 = SepBlock(c3, c3)
        self.lat8 = _cbr(c3, c2)
        self.m4 = nn.Sequential(SepBlock(c2, c2), SepBlock(c2, c2))
        self.head = nn.Conv2d(c2, OUT_CHANNELS, 1)
        with torch.no_grad():
            self.head.bias.zero_()
            self.head.bias[0] = -4.0  # few cells hold a die: start the heat near 2%

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        u8 = self.m8(f8 + self.up(self.lat16(f16)))
        u4 = self.m4(f4 + self.up(self.lat8(u8)))
        return self.head(u4)


def export_onnx(model: nn.Module, path: str, size: tuple[int, int] = (320, 256)) -> None:
    """ONNX of the model in eval mode (BatchNorm folded by constant folding), opset 12, the legacy
    exporter: a file OpenCV 4.6's dnn reads. `size` (w, h) is the traced input; the net is fully
    convolutional and runs at other sizes (multiples of 16) too: the file says so (`free_sides`)."""
    model = model.eval()
    dummy = torch.zeros(1, 1, size[1], size[0])
    torch.onnx.export(model, dummy, path, dynamo=False, opset_version=12, do_constant_folding=True,
                      input_names=["gray"], output_names=["out"])
    free_sides(path)


def free_sides(path: str) -> None:
    """Mark the detector's input and output height and width as free in the ONNX file (the graph is
    traced at one size and its operators do not depend on it): onnxruntime, unlike OpenCV's dnn, runs
    a net only at the sizes its file declares. The operators and weights are left as they are."""
    import onnx

    m = onnx.load(path)
    for v, names in ((m.graph.input[0], ("h", "w")), (m.graph.output[0], ("h4", "w4"))):
        dims = v.type.tensor_type.shape.dim
        for d, name in zip(dims[2:], names):
            d.dim_param = name
    onnx.save(m, path)


class FaceCNN(nn.Module):
    """The face reader (vision.faces): CROP x CROP grey crop in, N_CLASSES logits out, as (N, C, 1, 1)
    (global average pooling then a 1x1 convolution: no Flatten or Gemm, and any batch size). Plain 3x3
    convolutions (they run fast in OpenCV's dnn and train fast in PyTorch on a CPU), two at each of
    the strides 1, 2, 4 and 8: about 11 M multiply-adds for a 40x40 crop."""

    def __init__(self, width: tuple[int, ...] = (16, 24, 32, 48, 64, 96, 96)):
        from vision.faces import N_CLASSES as FACE_CLASSES

        super().__init__()
        c = width
        self.body = nn.Sequential(
            _cbr(1, c[0], 3), _cbr(c[0], c[1], 3, 2),  # /2
            _cbr(c[1], c[2], 3), _cbr(c[2], c[3], 3, 2),  # /4
            _cbr(c[3], c[4], 3), _cbr(c[4], c[5], 3, 2),  # /8
            _cbr(c[5], c[6], 3),
            nn.AdaptiveAvgPool2d(1), nn.Dropout(0.1))
        self.head = nn.Conv2d(c[6], FACE_CLASSES, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def export_faces_onnx(model: nn.Module, path: str) -> None:
    """ONNX of the face model, batch dimension free, for OpenCV 4.6's dnn (see export_onnx)."""
    from vision.faces import CROP

    model = model.eval()
    dummy = torch.zeros(4, 1, CROP, CROP)
    torch.onnx.export(model, dummy, path, dynamo=False, opset_version=12, do_constant_folding=True,
                      input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}})


class FloorNet(nn.Module):
    """The floor net (vision.floornet): a BGR frame (0-1) in, the floor's logit per cell of 2 x 2 pixels
    out. Depthwise-separable blocks down to stride 16, dilated there so that a cell sees the whole
    frame (a floor is told from a table by what surrounds it), then back up to stride 2 through
    the encoder's features (U-Net style, added rather than joined)."""

    def __init__(self, width: tuple[int, int, int, int] = (16, 24, 48, 64)):
        super().__init__()
        c1, c2, c3, c4 = width
        self.stem = _cbr(3, c1, 3, 2)  # /2
        self.s4 = nn.Sequential(SepBlock(c1, c2, 2), SepBlock(c2, c2))  # /4
        self.s8 = nn.Sequential(SepBlock(c2, c3, 2), SepBlock(c3, c3))  # /8
        self.s16 = nn.Sequential(SepBlock(c3, c4, 2), SepBlock(c4, c4, dilation=2), SepBlock(c4, c4, dilation=4),
                                 SepBlock(c4, c4, dilation=8))  # /16
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.lat16, self.m8 = _cbr(c4, c3), SepBlock(c3, c3)
        self.lat8, self.m4 = _cbr(c3, c2), SepBlock(c2, c2)
        self.lat4, self.m2 = _cbr(c2, c1), SepBlock(c1, c1)
        self.head = nn.Conv2d(c1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f2 = self.stem(x)
        f4 = self.s4(f2)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        u8 = self.m8(f8 + self.up(self.lat16(f16)))
        u4 = self.m4(f4 + self.up(self.lat8(u8)))
        u2 = self.m2(f2 + self.up(self.lat4(u4)))
        return self.head(u2)


def export_floor_onnx(model: nn.Module, path: str) -> None:
    """ONNX of the floor net at its fixed input size, for OpenCV 4.6's dnn (see export_onnx)."""
    from vision.floornet import IN_H, IN_W

    model = model.eval()
    dummy = torch.zeros(1, 3, IN_H, IN_W)
    torch.onnx.export(model, dummy, path, dynamo=False, opset_version=12, do_constant_folding=True,
                      input_names=["bgr"], output_names=["logit"])
