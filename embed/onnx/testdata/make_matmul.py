#!/usr/bin/env python3
"""Writes matmul_fp32.onnx and matmul_int8.onnx, one-node graphs with which a benchmark measures
the machine's matrix-multiply peak as ONNX Runtime reaches it. Inputs only (no weights), so
the files are tiny.

  fp32:  Y = MatMul(A, B)                       A float[M,K], B float[K,N]
  int8:  Y = MatMulInteger(A, B)                A uint8[M,K], B int8[K,N] (what a dynamically
                                                 quantised transformer runs)

Run with the reference venv (scripts/reference-venv.sh, plus `pip install onnx==1.19.1`):
  ~/.cache/pond/refvenv/bin/python embed/onnx/testdata/make_matmul.py
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, node, inputs, output):
    graph = helper.make_graph([node], name, inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


save("matmul_fp32", helper.make_node("MatMul", ["A", "B"], ["Y"]),
     [helper.make_tensor_value_info("A", TensorProto.FLOAT, ["M", "K"]),
      helper.make_tensor_value_info("B", TensorProto.FLOAT, ["K", "N"])],
     helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["M", "N"]))
save("matmul_int8", helper.make_node("MatMulInteger", ["A", "B"], ["Y"]),
     [helper.make_tensor_value_info("A", TensorProto.UINT8, ["M", "K"]),
      helper.make_tensor_value_info("B", TensorProto.INT8, ["K", "N"])],
     helper.make_tensor_value_info("Y", TensorProto.INT32, ["M", "N"]))
