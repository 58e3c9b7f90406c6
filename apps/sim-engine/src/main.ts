export async function main(_argv: string[]): Promise<number> {
  process.stderr.write('llmgw sim-engine: not implemented yet\n');
  return 3;
}
