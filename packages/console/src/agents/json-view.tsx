import { useMemo, useState } from 'react';
import type { Workflow } from './workflow-model';

/**
 * The whole workflow as JSON, the other view of the same state: canvas edits show here at once, and
 * every edit here that parses replaces the workflow (the canvas follows). The typed text is kept while
 * it does not parse, with the parser's message.
 */
export function JsonView({ workflow, onChange }: { workflow: Workflow; onChange(workflow: Workflow): void }) {
  const serialized = useMemo(() => JSON.stringify(workflow, null, 2), [workflow]);
  const [typed, setTyped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <div className="json-view">
      <label htmlFor="workflow-json">Workflow JSON</label>
      <textarea
        id="workflow-json"
        spellCheck={false}
        value={typed ?? serialized}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'workflow-json-error' : undefined}
        onChange={(event) => {
          setTyped(event.target.value);
          try {
            const parsed = JSON.parse(event.target.value);
            if (!parsed || !Array.isArray(parsed.nodes) || !Array.isArray(parsed.edges))
              throw new Error('The workflow needs "nodes" and "edges" arrays.');
            setProblem(undefined);
            onChange(parsed as Workflow);
          } catch (error) {
            setProblem((error as Error).message);
          }
        }}
        onBlur={() => !problem && setTyped(null)}
      />
      {problem ? (
        <p id="workflow-json-error" role="alert" className="field-error">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
