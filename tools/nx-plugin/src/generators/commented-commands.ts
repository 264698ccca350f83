// Shell lines for the READMEs the generators write: each command with its comment, the comments in one
// column whatever the names substituted into the commands.

/** `[command, comment]` rows as lines, comments aligned two spaces past the longest command; '' for none. */
export function commented(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([command]) => command.length));
  return rows
    .map(([command, comment]) => (comment === '' ? command : `${command.padEnd(width + 2)}# ${comment}`))
    .join('\n');
}
