// STUB (owner: agents helper).
export class WebhookToolkit {
  constructor(_deps: unknown) {}
}
