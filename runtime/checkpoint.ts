/** An opaque position of a subscription: an offset, a resume token, a stream revision. */
export type Checkpoint = string;
