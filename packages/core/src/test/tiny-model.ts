/**
 * Test fixture: writes a tiny BERT-shaped sentence-embedding model in transformers.js layout
 * (`<dir>/<id>/config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`), so tests
 * prove the real loading path without any download. The ONNX graph is an embedding-table lookup:
 * `last_hidden_state = (Gather(words, input_ids) + Gather(types, token_type_ids)) * attention_mask`,
 * encoded with protobufjs from the subset of onnx.proto declared below.
 *
 * With `layers` > 0 it writes a compute-heavy variant for benchmarks: after the lookup, `layers`
 * position-wise feed-forward blocks `h = h + MatMul(Relu(MatMul(h, W1[d x f])), W2[f x d])`
 * (d = `dimensions`, f = `intermediateSize`, default 4d), with deterministic pseudo-random weights
 * (seededRandom). It stands in for a real encoder's COMPUTE COST only: d=384, f=1536 costs 1.18M
 * multiply-adds per token per block, so 9 blocks (10.6M) match the linear layers of all-MiniLM-L6-v2
 * (6 x (4 x 384^2 + 2 x 384 x 1536) = 10.6M per token; MiniLM also has attention scores, ~0.2M per
 * token per layer at 256 tokens, not modelled). It has no attention, no layer norm and no trained
 * weights: its vectors carry no meaning (searches with it rank nothing sensibly), and its tokenizer is
 * the same tiny WordPiece vocabulary (unknown words split into letters, so texts take more tokens than
 * with a real 30k vocabulary).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { seededRandom } from './seeded-random';

const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message AttributeProto { string name = 1; float f = 2; int64 i = 3; bytes s = 4; repeated int64 ints = 8; int32 type = 20; }
message TensorProto {
  repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4; repeated int64 int64_data = 7; string name = 8; bytes raw_data = 9;
}
message TensorShapeProto { message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } } repeated Dimension dim = 1; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } oneof value { Tensor tensor_type = 1; } }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message ModelProto { int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
`;

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = `the a of to and in is for on with how what do i my can reset password account login admin console user email
invoice billing payment refund credit card error code server database backup restore cache memory disk network
search index vector store file upload document chunk token model embedding query result score filter api key
cat dog kitten puppy animal pet car truck vehicle road city river mountain weather rain snow sun cloud
deploy release version build test bug fix crash timeout latency quota limit rate`.split(/\s+/);
const SUFFIXES = ['s', 'es', 'ed', 'ing', 'er', 'ly'];

export interface TinyModelOptions {
  /** Model id (folder under `modelsDir`); default `fathom-test/tiny-bert`. */
  modelId?: string;
  /** Hidden size; default 64. */
  dimensions?: number;
  /** Tokenizer `model_max_length`; default 128. */
  maxLength?: number;
  /** Feed-forward blocks after the lookup (compute-cost stand-in, see the file comment); default 0. */
  layers?: number;
  /** Inner size of each feed-forward block; default 4 x `dimensions`. */
  intermediateSize?: number;
}

function vocabulary(): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const pieces = [...letters.map((letter) => `##${letter}`), ...SUFFIXES.map((suffix) => `##${suffix}`)];
  return [...new Set([...SPECIAL, ...WORDS, ...letters, ...pieces, ...'.,;:!?-_()\'"/@#'.split('')])];
}

/** `layers` residual feed-forward blocks from `input` to `output`: initializers and nodes. */
function feedForward(layers: number, dimensions: number, inner: number, input: string, output: string) {
  const next = seededRandom(4242);
  // Uniform weights scaled so each block changes the state by a bounded fraction (no normalisation).
  const weights = (rows: number, cols: number, scale: number) => {
    const data = new Float32Array(rows * cols);
    for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * scale;
    return new Uint8Array(data.buffer); // raw_data: little-endian float32, as ONNX specifies
  };
  const initializer: object[] = [];
  const node: object[] = [];
  let state = input;
  for (let layer = 0; layer < layers; layer++) {
    const w1 = `ffn${layer}_w1`;
    const w2 = `ffn${layer}_w2`;
    initializer.push({
      name: w1,
      dataType: FLOAT,
      dims: [dimensions, inner],
      rawData: weights(dimensions, inner, Math.sqrt(3 / dimensions)),
    });
    initializer.push({
      name: w2,
      dataType: FLOAT,
      dims: [inner, dimensions],
      rawData: weights(inner, dimensions, 0.5 * Math.sqrt(3 / inner)),
    });
    const out = layer === layers - 1 ? output : `ffn${layer}_out`;
    node.push(
      { opType: 'MatMul', name: `ffn${layer}_up`, input: [state, w1], output: [`ffn${layer}_up`] },
      { opType: 'Relu', name: `ffn${layer}_relu`, input: [`ffn${layer}_up`], output: [`ffn${layer}_act`] },
      { opType: 'MatMul', name: `ffn${layer}_down`, input: [`ffn${layer}_act`, w2], output: [`ffn${layer}_down`] },
      { opType: 'Add', name: `ffn${layer}_residual`, input: [state, `ffn${layer}_down`], output: [out] },
    );
    state = out;
  }
  return { initializer, node };
}

function encodeModel(vocabSize: number, dimensions: number, layers = 0, inner = 4 * dimensions): Uint8Array {
  const root = protobuf.parse(ONNX_PROTO).root;
  const Model = root.lookupType('onnx.ModelProto');
  const next = seededRandom(42);
  const words = Array.from({ length: vocabSize * dimensions }, () => next() * 2 - 1);
  for (let d = 0; d < dimensions; d++) words[d] = 0; // [PAD] embeds to zero
  const types = Array.from({ length: 2 * dimensions }, () => (next() * 2 - 1) * 0.01);
  const dynamic = (names: string[]) => ({ dim: names.map((name) => ({ dimParam: name })) });
  const input = (name: string) => ({ name, type: { tensorType: { elemType: INT64, shape: dynamic(['batch', 'sequence']) } } });
  const message = Model.create({
    irVersion: 8,
    producerName: 'fathom-tiny-model-fixture',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-bert',
      input: [input('input_ids'), input('attention_mask'), input('token_type_ids')],
      output: [
        {
          name: 'last_hidden_state',
          type: {
            tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: dimensions }] } },
          },
        },
      ],
      initializer: [
        { name: 'word_embeddings', dataType: FLOAT, dims: [vocabSize, dimensions], floatData: words },
        { name: 'type_embeddings', dataType: FLOAT, dims: [2, dimensions], floatData: types },
        { name: 'unsqueeze_axes', dataType: INT64, dims: [1], int64Data: [2] },
      ],
      node: [
        {
          opType: 'Gather',
          name: 'words',
          input: ['word_embeddings', 'input_ids'],
          output: ['word_states'],
          attribute: [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }],
        },
        {
          opType: 'Gather',
          name: 'types',
          input: ['type_embeddings', 'token_type_ids'],
          output: ['type_states'],
          attribute: [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }],
        },
        { opType: 'Add', name: 'sum', input: ['word_states', 'type_states'], output: ['states'] },
        {
          opType: 'Cast',
          name: 'mask_float',
          input: ['attention_mask'],
          output: ['mask'],
          attribute: [{ name: 'to', type: ATTRIBUTE_INT, i: FLOAT }],
        },
        { opType: 'Unsqueeze', name: 'mask_3d', input: ['mask', 'unsqueeze_axes'], output: ['mask3'] },
        { opType: 'Mul', name: 'masked', input: ['states', 'mask3'], output: ['last_hidden_state'] },
      ],
    },
  });
  if (layers > 0) {
    // Compute-heavy variant: the feed-forward blocks run on the looked-up states, then the mask.
    const { graph } = message as unknown as { graph: { node: Array<{ input: string[] }>; initializer: object[] } };
    const blocks = feedForward(layers, dimensions, inner, 'states', 'encoded');
    graph.node.at(-1)!.input[0] = 'encoded';
    graph.initializer.push(...blocks.initializer);
    graph.node.splice(-1, 0, ...(blocks.node as Array<{ input: string[] }>));
  }
  return Model.encode(message).finish();
}

function tokenizerJson(vocab: string[]): unknown {
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  const special = (token: string) => ({ id: token, ids: [ids[token]], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({
      id: ids[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

/** Writes the tiny model under `modelsDir/<modelId>` and returns the model id. */
export function writeTinyModel(modelsDir: string, options: TinyModelOptions = {}): string {
  const modelId = options.modelId ?? 'fathom-test/tiny-bert';
  const dimensions = options.dimensions ?? 64;
  const vocab = vocabulary();
  const dir = join(modelsDir, modelId);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const layers = options.layers ?? 0;
  writeFileSync(join(dir, 'onnx', 'model.onnx'), encodeModel(vocab.length, dimensions, layers, options.intermediateSize ?? 4 * dimensions));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dimensions,
      num_attention_heads: 1,
      num_hidden_layers: layers > 0 ? layers : 1,
      intermediate_size: layers > 0 ? (options.intermediateSize ?? 4 * dimensions) : dimensions,
      vocab_size: vocab.length,
      max_position_embeddings: options.maxLength ?? 128,
      type_vocab_size: 2,
      pad_token_id: 0,
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      model_max_length: options.maxLength ?? 128,
      do_lower_case: true,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  return modelId;
}
