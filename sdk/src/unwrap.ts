/**
 * The `data` of a successful answer's envelope. The client throws a CommerceApiError for every
 * failed answer, so a call that resolves always has it.
 */
export async function unwrap<D>(pending: Promise<{ data?: { data: D }; response: Response }>): Promise<D> {
  const { data, response } = await pending;
  if (!data) throw new Error(`The answer (${response.status}) has no data`);
  return data.data;
}
