/** JSON text cut at a size: `truncated` says whether anything was left out. */
export interface BoundedJson {
  text: string;
  truncated: boolean;
}

/**
 * `JSON.stringify(value, null, 2)`, stopped once the text reaches `maxChars`: the output is the same for
 * a value that fits, and a value of any size or depth costs at most `maxChars` of work and memory
 * (each nesting level writes its indentation first, so the recursion ends within a few hundred levels).
 */
export function formatJsonBounded(value: unknown, maxChars: number): BoundedJson {
  const parts: string[] = [];
  let length = 0;
  let truncated = false;
  const emit = (text: string) => {
    if (truncated) return;
    if (length + text.length > maxChars) {
      parts.push(text.slice(0, maxChars - length));
      length = maxChars;
      truncated = true;
      return;
    }
    parts.push(text);
    length += text.length;
  };
  const write = (node: unknown, indent: string): void => {
    if (truncated) return;
    if (node === null || typeof node !== 'object') {
      emit(JSON.stringify(node) ?? 'null');
      return;
    }
    const inner = `${indent}  `;
    if (Array.isArray(node)) {
      if (node.length === 0) {
        emit('[]');
        return;
      }
      emit('[\n');
      for (let i = 0; i < node.length && !truncated; i++) {
        emit(inner);
        write(node[i], inner);
        emit(i < node.length - 1 ? ',\n' : '\n');
      }
      emit(`${indent}]`);
      return;
    }
    const entries = Object.entries(node).filter(([, item]) => item !== undefined && typeof item !== 'function');
    if (entries.length === 0) {
      emit('{}');
      return;
    }
    emit('{\n');
    for (let i = 0; i < entries.length && !truncated; i++) {
      emit(`${inner}${JSON.stringify(entries[i]![0])}: `);
      write(entries[i]![1], inner);
      emit(i < entries.length - 1 ? ',\n' : '\n');
    }
    emit(`${indent}}`);
  };
  write(value, '');
  return { text: parts.join(''), truncated };
}
