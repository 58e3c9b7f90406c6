export async function main(_argv: string[]): Promise<number> {
  process.stderr.write('llmgw router: not implemented yet\n');
  return 3;
}
