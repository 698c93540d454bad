// GitHub Actions' workflow commands as its documentation defines them ("Workflow commands for
// GitHub Actions": `::command key=value,key=value::message`, one per line of output, a message
// escaping %, CR and LF as %25, %0D and %0A, a property value also : and , as %3A and %2C), read
// back the way the runner reads a step's output, so a test sees what GitHub would act on.

/** One workflow command as the runner reads it, its properties and message unescaped. */
export interface WorkflowCommand {
  command: string;
  properties: Record<string, string>;
  message: string;
}

const unescapeData = (text: string) =>
  text.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");

const unescapeProperty = (text: string) =>
  text
    .replace(/%0D/g, "\r")
    .replace(/%0A/g, "\n")
    .replace(/%3A/g, ":")
    .replace(/%2C/g, ",")
    .replace(/%25/g, "%");

/**
 * The lines of output as the runner splits them: at LF, CRLF or a lone CR (a .NET reader ends a
 * line at each), which is why both are escaped in a command.
 */
export const outputLines = (output: string): string[] => output.split(/\r\n|\r|\n/);

/**
 * Every workflow command in `output`. A line counts as one when it starts with `::` once leading
 * whitespace is trimmed (stricter than needed: any such line in a report is suspect).
 */
export function workflowCommands(output: string): WorkflowCommand[] {
  const found: WorkflowCommand[] = [];
  for (const raw of outputLines(output)) {
    const line = raw.trimStart();
    if (!line.startsWith("::")) continue;
    const end = line.indexOf("::", 2);
    if (end < 0) {
      found.push({ command: line.slice(2), properties: {}, message: "" });
      continue;
    }
    const head = line.slice(2, end);
    const space = head.indexOf(" ");
    const command = space < 0 ? head : head.slice(0, space);
    const properties: Record<string, string> = {};
    if (space >= 0)
      for (const pair of head.slice(space + 1).split(",")) {
        if (!pair) continue;
        const eq = pair.indexOf("=");
        if (eq > 0) properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
      }
    found.push({ command, properties, message: unescapeData(line.slice(end + 2)) });
  }
  return found;
}
