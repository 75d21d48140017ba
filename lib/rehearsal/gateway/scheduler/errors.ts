/** A Scheduler API error, raised by the emulator and sent in the REST-JSON shape the SDK reads. */
export class SchedulerApiError extends Error {
  constructor(
    readonly code: 'ValidationException' | 'ConflictException' | 'ResourceNotFoundException',
    message: string,
  ) {
    super(message);
    this.name = code;
  }

  get status(): number {
    return this.code === 'ConflictException' ? 409 : this.code === 'ResourceNotFoundException' ? 404 : 400;
  }
}

export const invalid = (message: string): SchedulerApiError => new SchedulerApiError('ValidationException', message);
