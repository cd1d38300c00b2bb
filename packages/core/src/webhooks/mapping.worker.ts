/** Piscina task: renders a Webhook answer whose `responseMapping` is not plain, off the main thread. */
import { renderSuccessBody, type RenderTask } from './format-response';

export default function render(task: RenderTask): string {
  return renderSuccessBody(task);
}
