import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failure messages and stack traces can quote inputs (a query, a URL): with a payload codec they are
 * moved into an encoded payload too. Loaded by path (`failureConverterPath`) in clients and in the
 * workflow sandbox, so it imports nothing from Node.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
