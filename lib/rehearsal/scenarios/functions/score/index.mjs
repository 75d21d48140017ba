// The function the jobs scenario's `lambdaInvoke` task starts: it scores its payload's rows and
// returns the score, or fails when asked to; the Lambda service sends the outcome to its
// destination (the Airless bus), which resumes the task.
export const handler = async (event) => {
  if (event?.fail) throw new Error(`cannot score ${JSON.stringify(event)}`);
  const rows = Array.isArray(event?.rows) ? event.rows : [];
  return { scored: rows.length, score: rows.reduce((a, b) => a + Number(b), 0) };
};
