export async function main(_argv: string[]): Promise<number> {
  process.stderr.write('llmgw ctl: not implemented yet\n');
  return 3;
}
