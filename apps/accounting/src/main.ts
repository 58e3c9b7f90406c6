export async function main(_argv: string[]): Promise<number> {
  process.stderr.write('llmgw accounting: not implemented yet\n');
  return 3;
}
