export type { Embedder } from './embedder';
export { createEmbedder, createOpenAICompatibleEmbedder, createTransformersEmbedder } from './create-embedder';
export { HashEmbedder, type HashEmbedderOptions } from './hash-embedder';
export { OpenAICompatibleEmbedder, type OpenAICompatibleEmbedderOptions } from './openai-embedder';
export { TransformersEmbedder, configureTransformers, type TransformersEmbedderOptions } from './transformers-embedder';
