"""Builds an ONNX graph of a sentence-transformers BERT encoder from its safetensors weights.

    python bert-to-onnx.py <model folder> <output.onnx>

The folder holds a Hugging Face BERT checkpoint (config.json, model.safetensors) and its
sentence-transformers modules (1_Pooling/config.json with mean pooling, a Normalize module).
The graph takes `input_ids` and `attention_mask` (int64, [batch, sequence]) and returns
`sentence_embedding` ([batch, hidden]): the encoder's last hidden states mean-pooled over the
unmasked tokens, then L2-normalized, exactly what SentenceTransformer.encode returns. Token type
ids are all zero for single sentences, so their embedding row is folded into a constant.

It needs only onnx, numpy and safetensors (no PyTorch): the graph is written node by node.
"""
import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 17  # LayerNormalization is a standard operator from 17 on
IR_VERSION = 8  # the IR of opset 17; a newer onnx package would stamp one the runtime may not read yet


def main(folder: Path, out: Path) -> None:
    config = json.loads((folder / 'config.json').read_text())
    pooling = json.loads((folder / '1_Pooling' / 'config.json').read_text())
    modules = json.loads((folder / 'modules.json').read_text())
    if config['model_type'] != 'bert' or config['hidden_act'] != 'gelu':
        raise SystemExit(f"unsupported model: {config['model_type']} / {config['hidden_act']}")
    if not pooling['pooling_mode_mean_tokens'] or any(pooling[k] for k in pooling if k.startswith('pooling_mode_') and k != 'pooling_mode_mean_tokens'):
        raise SystemExit('only mean pooling is supported')
    normalize = any(m['type'].endswith('.Normalize') for m in modules)

    weights = load_file(str(folder / 'model.safetensors'))
    hidden = config['hidden_size']
    heads = config['num_attention_heads']
    head_dim = hidden // heads
    eps = config['layer_norm_eps']

    initializers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    defined: set[str] = set()

    def const(name: str, value: np.ndarray) -> str:
        if name not in defined:
            defined.add(name)
            initializers.append(numpy_helper.from_array(value, name))
        return name

    def w(key: str, transpose: bool = False) -> str:
        value = weights[key].astype(np.float32)
        return const(key, np.ascontiguousarray(value.T) if transpose else value)

    counter = iter(range(1_000_000))

    def node(op: str, inputs: list[str], **attrs) -> str:
        name = f'{op.lower()}_{next(counter)}'
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x: str, prefix: str) -> str:
        return node('Add', [node('MatMul', [x, w(f'{prefix}.weight', transpose=True)]), w(f'{prefix}.bias')])

    def layer_norm(x: str, prefix: str) -> str:
        return node('LayerNormalization', [x, w(f'{prefix}.weight'), w(f'{prefix}.bias')], axis=-1, epsilon=eps)

    def gelu(x: str) -> str:
        # The exact (erf) GELU BERT uses: x * 0.5 * (1 + erf(x / sqrt 2)).
        erf = node('Erf', [node('Div', [x, const('sqrt2', np.array(math.sqrt(2), np.float32))])])
        return node('Mul', [node('Mul', [x, const('half', np.array(0.5, np.float32))]), node('Add', [erf, const('one', np.array(1.0, np.float32))])])

    # Embeddings: word + position (0..S-1) + token type 0, then LayerNorm.
    word = node('Gather', [w('embeddings.word_embeddings.weight'), 'input_ids'], axis=0)
    seq_len = node('Gather', [node('Shape', ['input_ids']), const('axis1', np.array(1, np.int64))], axis=0)
    positions = node('Range', [const('zero_i64', np.array(0, np.int64)), seq_len, const('one_i64', np.array(1, np.int64))])
    position = node('Gather', [w('embeddings.position_embeddings.weight'), positions], axis=0)
    token_type = const('token_type_0', weights['embeddings.token_type_embeddings.weight'][0].astype(np.float32))
    h = layer_norm(node('Add', [node('Add', [word, position]), token_type]), 'embeddings.LayerNorm')

    # Additive attention mask, [B, 1, 1, S]: 0 where attended, a large negative where padded.
    mask = node('Cast', ['attention_mask'], to=TensorProto.FLOAT)
    mask_4d = node('Unsqueeze', [mask, const('axes_1_2', np.array([1, 2], np.int64))])
    mask_bias = node('Mul', [node('Sub', [const('one_f', np.array(1.0, np.float32)), mask_4d]), const('neg_large', np.array(-1e4, np.float32))])

    split_heads = const('split_heads', np.array([0, 0, heads, head_dim], np.int64))
    merge_heads = const('merge_heads', np.array([0, 0, hidden], np.int64))
    scale = const('scale', np.array(1 / math.sqrt(head_dim), np.float32))
    for i in range(config['num_hidden_layers']):
        p = f'encoder.layer.{i}'
        q = node('Transpose', [node('Reshape', [linear(h, f'{p}.attention.self.query'), split_heads])], perm=[0, 2, 1, 3])
        k = node('Transpose', [node('Reshape', [linear(h, f'{p}.attention.self.key'), split_heads])], perm=[0, 2, 3, 1])
        v = node('Transpose', [node('Reshape', [linear(h, f'{p}.attention.self.value'), split_heads])], perm=[0, 2, 1, 3])
        scores = node('Add', [node('Mul', [node('MatMul', [q, k]), scale]), mask_bias])
        context = node('MatMul', [node('Softmax', [scores], axis=-1), v])
        context = node('Reshape', [node('Transpose', [context], perm=[0, 2, 1, 3]), merge_heads])
        h = layer_norm(node('Add', [linear(context, f'{p}.attention.output.dense'), h]), f'{p}.attention.output.LayerNorm')
        inner = gelu(linear(h, f'{p}.intermediate.dense'))
        h = layer_norm(node('Add', [linear(inner, f'{p}.output.dense'), h]), f'{p}.output.LayerNorm')

    # Mean over the unmasked tokens.
    mask_3d = node('Unsqueeze', [mask, const('axes_2', np.array([2], np.int64))])
    axes_1 = const('axes_1', np.array([1], np.int64))
    summed = node('ReduceSum', [node('Mul', [h, mask_3d]), axes_1], keepdims=0)
    counts = node('Max', [node('ReduceSum', [mask_3d, axes_1], keepdims=0), const('min_count', np.array(1e-9, np.float32))])
    pooled = node('Div', [summed, counts])
    if normalize:
        norm = node('Max', [node('ReduceL2', [pooled], axes=[1], keepdims=1), const('min_norm', np.array(1e-12, np.float32))])
        pooled = node('Div', [pooled, norm])
    nodes.append(helper.make_node('Identity', [pooled], ['sentence_embedding'], name='output'))

    graph = helper.make_graph(
        nodes,
        'sentence_encoder',
        [
            helper.make_tensor_value_info('input_ids', TensorProto.INT64, ['batch', 'sequence']),
            helper.make_tensor_value_info('attention_mask', TensorProto.INT64, ['batch', 'sequence']),
        ],
        [helper.make_tensor_value_info('sentence_embedding', TensorProto.FLOAT, ['batch', hidden])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)], producer_name='bert-to-onnx')
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    tmp = out.with_suffix('.tmp')
    onnx.save(model, str(tmp))
    tmp.replace(out)  # atomic: a half-written file is never taken for the model


if __name__ == '__main__':
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
