/** The best `k` (score, label) pairs seen so far, best first, kept by insertion: cheap when most scores miss. */
export class TopHits {
  readonly scores: Float64Array;
  readonly labels: Float64Array;
  size = 0;
  /** The score a newcomer must beat once `k` are held; -Infinity before. */
  floor = Number.NEGATIVE_INFINITY;

  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.labels = new Float64Array(k);
  }

  /** Keeps (score, label) if it ranks among the best `k`. Call only when `score > floor`. */
  push(score: number, label: number): void {
    const { scores, labels, k } = this;
    let at = this.size < k ? this.size++ : k - 1;
    while (at > 0 && scores[at - 1]! < score) {
      scores[at] = scores[at - 1]!;
      labels[at] = labels[at - 1]!;
      at--;
    }
    scores[at] = score;
    labels[at] = label;
    if (this.size === k) this.floor = scores[k - 1]!;
  }
}
