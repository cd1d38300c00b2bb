/**
 * Test fixture: writes a tiny BERT-shaped sentence-embedding model in transformers.js layout
 * (`<dir>/<id>/config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`), so tests
 * prove the real loading path without any download. The ONNX graph is an embedding-table lookup:
 * `last_hidden_state = (Gather(words, input_ids) + Gather(types, token_type_ids)) * attention_mask`,
 * encoded with protobufjs from the subset of onnx.proto declared below.
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
  repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4; repeated int64 int64_data = 7; string name = 8;
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
}

function vocabulary(): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const pieces = [...letters.map((letter) => `##${letter}`), ...SUFFIXES.map((suffix) => `##${suffix}`)];
  return [...new Set([...SPECIAL, ...WORDS, ...letters, ...pieces, ...'.,;:!?-_()\'"/@#'.split('')])];
}


function encodeModel(vocabSize: number, dimensions: number): Uint8Array {
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
          type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: dimensions }] } } },
        },
      ],
      initializer: [
        { name: 'word_embeddings', dataType: FLOAT, dims: [vocabSize, dimensions], floatData: words },
        { name: 'type_embeddings', dataType: FLOAT, dims: [2, dimensions], floatData: types },
        { name: 'unsqueeze_axes', dataType: INT64, dims: [1], int64Data: [2] },
      ],
      node: [
        { opType: 'Gather', name: 'words', input: ['word_embeddings', 'input_ids'], output: ['word_states'], attribute: [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }] },
        { opType: 'Gather', name: 'types', input: ['type_embeddings', 'token_type_ids'], output: ['type_states'], attribute: [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }] },
        { opType: 'Add', name: 'sum', input: ['word_states', 'type_states'], output: ['states'] },
        { opType: 'Cast', name: 'mask_float', input: ['attention_mask'], output: ['mask'], attribute: [{ name: 'to', type: ATTRIBUTE_INT, i: FLOAT }] },
        { opType: 'Unsqueeze', name: 'mask_3d', input: ['mask', 'unsqueeze_axes'], output: ['mask3'] },
        { opType: 'Mul', name: 'masked', input: ['states', 'mask3'], output: ['last_hidden_state'] },
      ],
    },
  });
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
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
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
  writeFileSync(join(dir, 'onnx', 'model.onnx'), encodeModel(vocab.length, dimensions));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dimensions,
      num_attention_heads: 1,
      num_hidden_layers: 1,
      intermediate_size: dimensions,
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
