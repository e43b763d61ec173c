/** One line per measured figure, easy to grep from the runner's output: `RELIABILITY {"r": "R1", …}`. */
export function report(r: string, figures: Record<string, unknown>): void {
  console.log(`RELIABILITY ${JSON.stringify({ r, ...figures })}`);
}
