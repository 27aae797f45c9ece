// The ways a Modbus request fails, as the rest of the hub sees them. Drivers and the scheduler
// decide on these classes (back off, re-detect, give up), never on a library's message text.

export class ModbusError extends Error {}

/** The device answered with a Modbus exception (2 illegal address, 6 busy, 11 gateway target failed…). */
export class ModbusExceptionError extends ModbusError {
  constructor(readonly code: number, detail: string) {
    super(`Modbus exception ${code}: ${detail}`);
    this.name = 'ModbusExceptionError';
  }
}

/** No answer within the request's timeout, or the request's deadline passed while it waited. */
export class ModbusTimeoutError extends ModbusError {
  constructor(message = 'no answer in time') {
    super(message);
    this.name = 'ModbusTimeoutError';
  }
}

/** The connection could not be opened, broke, or delivered a frame that made no sense. */
export class ModbusConnectionError extends ModbusError {
  constructor(message: string) {
    super(message);
    this.name = 'ModbusConnectionError';
  }
}

/** The line has no connection (it cannot be opened, or is backing off): the request was never sent. */
export class ModbusNotConnectedError extends ModbusConnectionError {
  constructor(message: string) {
    super(message);
    this.name = 'ModbusNotConnectedError';
  }
}

export const EXCEPTION_ILLEGAL_ADDRESS = 2;
export const EXCEPTION_BUSY = 6;
export const EXCEPTION_GATEWAY_TARGET_FAILED = 11;
