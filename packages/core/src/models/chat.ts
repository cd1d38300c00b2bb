import type { ChatCompletions } from './chat-completions';

/** `fathom.chat` (OpenAI's `chat`): the chat completions. */
export class Chat {
  readonly completions: ChatCompletions;

  constructor(completions: ChatCompletions) {
    this.completions = completions;
  }
}
