// sendMessage: the body must be one inbound external message; the sink (a mempool) takes it or refuses.
import { Cell, loadMessage, type Message } from '@ton/core';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';

/** Takes an accepted external message; throw LiteServerError to refuse it with that code and message. */
export type MessageSink = (message: Message, cell: Cell) => void | Promise<void>;

export async function acceptExternalMessage(body: Buffer, sink: MessageSink): Promise<void> {
  let cell: Cell;
  let message: Message;
  try {
    const roots = Cell.fromBoc(body);
    if (roots.length !== 1) throw new Error(`${roots.length} roots, not one`);
    cell = roots[0]!;
    message = loadMessage(cell.beginParse());
  } catch (e) {
    throw new LiteServerError(LiteErrorCode.error, `sendMessage body is not a message BoC: ${(e as Error).message}`);
  }
  if (message.info.type !== 'external-in') throw new LiteServerError(LiteErrorCode.error, `sendMessage takes inbound external messages, not ${message.info.type}`);
  await sink(message, cell);
}
