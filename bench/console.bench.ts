/**
 * Console figures, in the same headless Chromium the e2e tests use (@sparticuz/chromium):
 * - the gzipped JavaScript the first page (sign-in) loads, as served by Fathom;
 * - time to interactive of the agents page (an agent opened in the canvas editor), cold cache;
 * - a 200-node workflow while a node is dragged: time from each mouse move to the next painted frame.
 * Needs the built console (`npm install` builds it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { launchBrowser, startConsoleServer } from '../packages/console/e2e/browser.ts';
import { DEFAULT_CONSOLE_DIR } from '../packages/http/src/console.ts';

const COLD_LOADS = 5;
const DRAG_STEPS = 120;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}
const median = (values: number[]) => percentile(values, 0.5);

/** A workflow of `count` nodes: start, end, agents in a chain, one card per agent in its slot-0. */
function bigWorkflow(count: number) {
  const agents = Math.floor((count - 2) / 2);
  const nodes: any[] = [{ id: 'start', type: 'start', data: { label: 'Start' }, position: { x: 0, y: 0 } }];
  const edges: any[] = [];
  let previous = 'start';
  for (let i = 1; i <= agents; i++) {
    const row = Math.floor((i - 1) / 10);
    const column = (i - 1) % 10;
    nodes.push({
      id: `agent-${i}`,
      type: 'agent',
      data: { name: `Agent ${i}`, model: 'fake/m' },
      position: { x: column * 420 + 200, y: row * 260 + 120 },
    });
    nodes.push({
      id: `card-${i}`,
      type: 'webhook',
      data: {
        name: `Card ${i}`,
        config: {
          baseUrl: 'https://api.example.com',
          routes: [{ name: `route_${i}`, description: 'd', whenToUse: 'w', path: '/x' }],
        },
      },
      position: { x: column * 420, y: row * 260 + 200 },
    });
    edges.push({ id: `f-${i}`, source: previous, target: `agent-${i}` });
    edges.push({ id: `s-${i}`, source: `card-${i}`, target: `agent-${i}`, targetHandle: 'slot-0' });
    previous = `agent-${i}`;
  }
  nodes.push({ id: 'end', type: 'end', data: { label: 'End', status: 'success' }, position: { x: 0, y: 3000 } });
  edges.push({ id: 'f-end', source: previous, target: 'end' });
  return { nodes, edges };
}

/** Signs in by putting the session where the console keeps it, before any page script runs. */
async function withSession(page: Page, key: string) {
  await page.addInitScript((value) => {
    sessionStorage.setItem('fathom.console.session', JSON.stringify({ key: value, kind: 'account', name: 'bench' }));
  }, key);
}

/** Opens an agent, drags one node by DRAG_STEPS mouse moves and returns the in-page timings. */
async function dragNode(id: string, count: number, node: { type: string; data: { name: string } }) {
  const page = await browser.context.newPage();
  await withSession(page, server.apiKey);
  // Every frame's interval while recording: at 60 Hz an idle page paints every 16.7 ms; work done in
  // response to the drag (handlers, React Flow, React) shows up as longer intervals. (A string, not a
  // function: tsx's name-keeping helpers do not exist in the page.)
  await page.addInitScript({
    content: `
      const state = { samples: [], longTasks: 0, longTaskMs: 0, recording: false };
      window.__drag = state;
      let last = 0;
      requestAnimationFrame(function frame(now) {
        if (state.recording && last) state.samples.push(now - last);
        last = now;
        requestAnimationFrame(frame);
      });
      new PerformanceObserver((list) => {
        if (!state.recording) return;
        for (const entry of list.getEntries()) { state.longTasks++; state.longTaskMs += entry.duration; }
      }).observe({ type: 'longtask' });`,
  });
  await page.goto(`${server.url}/console/#/agents/${id}`);
  await page
    .locator('.react-flow__node')
    .nth(count - 1)
    .waitFor();
  const nodes = await page.locator('.react-flow__node').count();
  const target = page.getByRole('group', { name: `${node.type} node ${node.data.name}` });
  const before = (await target.boundingBox())!;
  const x = before.x + before.width / 2;
  const y = before.y + 8;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.evaluate(() => ((window as any).__drag.recording = true));
  // One move per frame, as a pointer does.
  for (let step = 1; step <= DRAG_STEPS; step++) {
    await page.mouse.move(x + step * 2, y + step);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  }
  await page.mouse.up();
  const result = await page.evaluate(() => {
    const state = (window as any).__drag;
    state.recording = false;
    return { samples: state.samples as number[], longTasks: state.longTasks as number, longTaskMs: state.longTaskMs as number };
  });
  const after = (await target.boundingBox())!;
  await page.close();
  return { nodes, ...result, moved: Math.hypot(after.x - before.x, after.y - before.y) };
}

const server = await startConsoleServer();
const browser = await launchBrowser();
try {
  // 1. The first page's JavaScript: what the browser downloads for the sign-in page.
  const page = await browser.context.newPage();
  const scripts: Array<{ url: string; bytes: number }> = [];
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'script') {
      const sizes = await response.request().sizes();
      scripts.push({ url: response.url(), bytes: sizes.responseBodySize });
    }
  });
  await page.goto(`${server.url}/console/`, { waitUntil: 'networkidle' });
  await page.getByLabel('API key').waitFor();
  const servedGzip = scripts.reduce((sum, script) => sum + script.bytes, 0);
  const rawBytes = scripts.reduce((sum, script) => {
    const path = new URL(script.url).pathname.replace(/^\/console\//, '');
    return sum + readFileSync(join(DEFAULT_CONSOLE_DIR, path)).length;
  }, 0);
  const gzipMax = scripts.reduce((sum, script) => {
    const path = new URL(script.url).pathname.replace(/^\/console\//, '');
    return sum + gzipSync(readFileSync(join(DEFAULT_CONSOLE_DIR, path)), { level: 9 }).length;
  }, 0);
  await page.close();

  // 2. Time to interactive of the agents page: a realistic agent opened in the editor, cold cache.
  const example = JSON.parse(readFileSync(new URL('../examples/agent-with-webhook.json', import.meta.url), 'utf8'));
  const created = await (await server.request('/v1/agents', { method: 'POST', json: example })).json();
  const agentId = created.agent.id as string;
  const visible: number[] = [];
  const interactive: number[] = [];
  for (let run = 0; run < COLD_LOADS; run++) {
    const cold = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(cold);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await withSession(cold, server.apiKey);
    await cold.addInitScript(() => {
      (window as any).__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) (window as any).__longTasks.push(entry.startTime + entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await cold.goto(`${server.url}/console/#/agents/${agentId}`);
    await cold
      .locator('.react-flow__node')
      .nth(example.workflow.nodes.length - 1)
      .waitFor();
    const nodesAt = await cold.evaluate(() => performance.now());
    // Interactive: a click on a tab is answered (its panel rendered) ...
    await cold.getByRole('tab', { name: 'JSON' }).click();
    await cold.getByLabel('Workflow JSON').waitFor();
    // ... and the main thread has had no long task (> 50 ms) for 500 ms.
    await cold.waitForTimeout(600);
    const tti = await cold.evaluate((nodesTime) => {
      const ends: number[] = (window as any).__longTasks;
      return Math.max(nodesTime, ...ends.filter((end) => end <= performance.now() - 500));
    }, nodesAt);
    visible.push(nodesAt);
    interactive.push(tti);
    await cold.close();
  }

  // 3. 200 nodes: drag one node across the canvas. In the page, each mousemove is timed from the
  // event to the next animation frame (the handler, React Flow's update and React's render of the move
  // happen in between); long tasks (> 50 ms) during the drag are counted. The same drag on the 4-node
  // agent is the baseline.
  const big = await (await server.request('/v1/agents', { method: 'POST', json: { name: 'Big', workflow: bigWorkflow(200) } })).json();
  const dragSmall = await dragNode(
    agentId,
    example.workflow.nodes.length,
    example.workflow.nodes.find((node: any) => node.type === 'agent'),
  );
  const dragBig = await dragNode(big.agent.id, 200, { type: 'agent', data: { name: 'Agent 45' } });

  console.log('\nFirst page (sign-in) JavaScript');
  console.table({
    scripts: { value: scripts.length },
    'served gzip (KB)': { value: +(servedGzip / 1024).toFixed(1) },
    'gzip -9 of the same files (KB)': { value: +(gzipMax / 1024).toFixed(1) },
    'uncompressed (KB)': { value: +(rawBytes / 1024).toFixed(1) },
  });
  console.log(
    `\nAgents page (${example.workflow.nodes.length}-node agent opened in the editor), ${COLD_LOADS} cold loads, ms since navigation`,
  );
  console.table({
    'canvas nodes rendered': { p50: +median(visible).toFixed(0), max: +Math.max(...visible).toFixed(0) },
    'time to interactive': { p50: +median(interactive).toFixed(0), max: +Math.max(...interactive).toFixed(0) },
  });
  console.log(`\nDragging one node, ${DRAG_STEPS} mouse moves (one per frame): frame intervals in ms while dragging`);
  console.table(
    Object.fromEntries(
      [dragSmall, dragBig].map((result) => [
        `${result.nodes} nodes`,
        {
          frames: result.samples.length,
          p50: +median(result.samples).toFixed(1),
          p95: +percentile(result.samples, 0.95).toFixed(1),
          max: +Math.max(...result.samples).toFixed(1),
          'frames/s': +(1000 / (result.samples.reduce((sum, value) => sum + value, 0) / result.samples.length)).toFixed(0),
          'long tasks': result.longTasks,
          'long task ms': Math.round(result.longTaskMs),
          'node moved (px)': Math.round(result.moved),
        },
      ]),
    ),
  );
} finally {
  await browser.close();
  await server.close({ keepData: false });
}
