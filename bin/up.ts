/**
 * `llmgw up`: the whole stack on one machine, on embedded defaults.
 * Grows with each service; see README "Quick start".
 */
export async function main(_argv: string[]): Promise<number> {
  process.stderr.write('llmgw up: no services are wired yet\n');
  return 3;
}
