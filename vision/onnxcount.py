"""Multiply-adds of an ONNX convolutional net at a given input size, read from the file itself.

`macs(path, (h, w))` walks the graph's nodes in order, carrying each tensor's (channels, height,
width), and adds up every Conv node's multiply-adds: out_channels x in_channels/group x kernel
area x output height x width (a bias add is not counted). Shapes pass through element-wise nodes
(Relu, Add, BatchNormalization, Sigmoid, ...) and are scaled by Resize / Upsample (their scales
from a Constant or an initializer) and pooling. The file is read with a small protobuf decoder of
its own, so neither the `onnx` package nor a runtime is needed.
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path


class OnnxError(ValueError):
    user_error = True


# --------------------------------------------------------------------------- protobuf wire format
def _varint(b: bytes, i: int) -> tuple[int, int]:
    shift = out = 0
    while True:
        if i >= len(b):
            raise OnnxError("truncated varint")
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        if not c & 0x80:
            return out, i
        shift += 7


def _fields(b: bytes):
    """(field number, wire type, value) of one message: value is an int (varint, fixed) or bytes."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise OnnxError(f"unsupported protobuf wire type {wt}")
        yield num, wt, v


def _ints(wt: int, v) -> list[int]:
    """A repeated int64 field's values (packed or one at a time), as signed ints."""
    def signed(x: int) -> int:
        return x - (1 << 64) if x >= 1 << 63 else x

    if wt == 0:
        return [signed(v)]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(signed(x))
    return out


@dataclass
class Tensor:
    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    values: list[float] = field(default_factory=list)


def _tensor(b: bytes) -> tuple[str, Tensor]:
    t, name, raw = Tensor(), "", b""
    for num, wt, v in _fields(b):
        if num == 1:
            t.dims += _ints(wt, v)
        elif num == 2:
            t.data_type = v
        elif num == 4:  # float_data
            t.values += list(struct.unpack(f"<{len(v) // 4}f", v)) if wt == 2 else list(struct.unpack("<f", v))
        elif num == 7:  # int64_data
            t.values += _ints(wt, v)
        elif num == 8:
            name = v.decode()
        elif num == 9:
            raw = v
    if raw and t.data_type == 1:
        t.values = list(struct.unpack(f"<{len(raw) // 4}f", raw))
    elif raw and t.data_type == 7:
        t.values = list(struct.unpack(f"<{len(raw) // 8}q", raw))
    return name, t


@dataclass
class Node:
    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict


def _attr(b: bytes) -> tuple[str, object]:
    name, val, ints, floats = "", None, [], []
    for num, wt, v in _fields(b):
        if num == 1:
            name = v.decode()
        elif num == 2:
            val = struct.unpack("<f", v)[0]
        elif num == 3:
            val = _ints(0, v)[0]
        elif num == 4:
            val = v
        elif num == 5:
            val = _tensor(v)[1]
        elif num == 7:
            floats += list(struct.unpack(f"<{len(v) // 4}f", v)) if wt == 2 else list(struct.unpack("<f", v))
        elif num == 8:
            ints += _ints(wt, v)
    if ints:
        val = ints
    elif floats:
        val = floats
    return name, val


def _node(b: bytes) -> Node:
    n = Node("", [], [], {})
    for num, _, v in _fields(b):
        if num == 1:
            n.inputs.append(v.decode())
        elif num == 2:
            n.outputs.append(v.decode())
        elif num == 4:
            n.op = v.decode()
        elif num == 5:
            k, a = _attr(v)
            n.attrs[k] = a
    return n


def graph(path: str | os.PathLike) -> tuple[list[Node], dict[str, Tensor], list[str]]:
    """The nodes (in file order), initializers and input names of an ONNX model file."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise OnnxError(f"{p}: cannot read ({e.strerror or e})") from None
    g = None
    try:
        for num, wt, v in _fields(data):
            if num == 7 and wt == 2:
                g = v
        if g is None:
            raise OnnxError(f"{p}: no graph in this file (not an ONNX model?)")
        nodes, inits, inputs = [], {}, []
        for num, wt, v in _fields(g):
            if num == 1:
                nodes.append(_node(v))
            elif num == 5:
                k, t = _tensor(v)
                inits[k] = t
            elif num == 11:
                for n2, _, v2 in _fields(v):
                    if n2 == 1:
                        inputs.append(v2.decode())
    except (IndexError, struct.error, UnicodeDecodeError) as e:
        raise OnnxError(f"{p}: damaged ONNX file ({e})") from None
    return nodes, inits, [i for i in inputs if i not in inits]


ELEMENTWISE = {"Relu", "Add", "Mul", "Sub", "Div", "Sigmoid", "BatchNormalization", "Clip", "LeakyRelu",
               "Identity", "Dropout", "HardSigmoid", "HardSwish", "PRelu", "Tanh", "Softmax"}


def macs(path: str | os.PathLike, hw: tuple[int, int], channels: int = 1) -> dict:
    """{"macs": total, "conv_nodes": n, "output": (c, h, w)} of the net at input (1, channels, h, w)."""
    nodes, inits, inputs = graph(path)
    if not inputs:
        raise OnnxError(f"{path}: the graph has no input")
    shapes: dict[str, tuple[int, int, int]] = {inputs[0]: (channels, int(hw[0]), int(hw[1]))}
    consts: dict[str, Tensor] = dict(inits)
    total = n_conv = 0
    for n in nodes:
        if n.op == "Constant":
            if isinstance(n.attrs.get("value"), Tensor):
                consts[n.outputs[0]] = n.attrs["value"]
            continue
        ins = [shapes[i] for i in n.inputs if i in shapes]
        if n.op == "Conv":
            w = consts.get(n.inputs[1])
            if w is None or len(w.dims) != 4 or not ins:
                raise OnnxError(f"{path}: a Conv node whose weight or input shape is unknown")
            m, cg, kh, kw = w.dims
            c, h, wd = ins[0]
            sh, sw = (n.attrs.get("strides") or [1, 1])[:2]
            dh, dw = (n.attrs.get("dilations") or [1, 1])[:2]
            pads = n.attrs.get("pads") or [0, 0, 0, 0]
            if n.attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", b"VALID"):
                ho, wo = math.ceil(h / sh), math.ceil(wd / sw)
            else:
                ho = (h + pads[0] + pads[2] - dh * (kh - 1) - 1) // sh + 1
                wo = (wd + pads[1] + pads[3] - dw * (kw - 1) - 1) // sw + 1
            total += m * cg * kh * kw * ho * wo
            n_conv += 1
            shapes[n.outputs[0]] = (m, ho, wo)
        elif n.op in ("Resize", "Upsample"):
            c, h, wd = ins[0]
            scales = None
            for name in n.inputs[1:]:
                t = consts.get(name)
                if t is not None and len(t.values) == 4 and t.data_type == 1:
                    scales = t.values
                elif t is not None and len(t.values) == 4 and t.data_type == 7:  # sizes
                    scales = [t.values[k] / s for k, s in enumerate((1, c, h, wd))]
            if scales is None and isinstance(n.attrs.get("scales"), list):
                scales = n.attrs["scales"]
            if scales is None:
                raise OnnxError(f"{path}: a {n.op} node whose scales are unknown")
            shapes[n.outputs[0]] = (c, int(math.floor(h * scales[2])), int(math.floor(wd * scales[3])))
        elif n.op in ("MaxPool", "AveragePool"):
            c, h, wd = ins[0]
            kh, kw = n.attrs["kernel_shape"][:2]
            sh, sw = (n.attrs.get("strides") or [1, 1])[:2]
            pads = n.attrs.get("pads") or [0, 0, 0, 0]
            shapes[n.outputs[0]] = (c, (h + pads[0] + pads[2] - kh) // sh + 1, (wd + pads[1] + pads[3] - kw) // sw + 1)
        elif n.op in ("GlobalAveragePool", "GlobalMaxPool"):
            shapes[n.outputs[0]] = (ins[0][0], 1, 1)
        elif n.op == "Concat":
            shapes[n.outputs[0]] = (sum(s[0] for s in ins), ins[0][1], ins[0][2])
        elif n.op in ELEMENTWISE:
            if ins:
                shapes[n.outputs[0]] = max(ins, key=lambda s: s[0] * s[1] * s[2])
        else:
            raise OnnxError(f"{path}: cannot follow shapes through a {n.op} node")
    out = shapes.get(nodes[-1].outputs[0]) if nodes else None
    return {"macs": total, "conv_nodes": n_conv, "output": out}
