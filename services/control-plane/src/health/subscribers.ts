// The data planes subscribed to this control-plane replica (open Subscribe streams), for GET /admin/health.
export interface Subscriber {
  replicaId: string;
  since: Date;
}

export class Subscribers {
  private readonly open = new Set<Subscriber>();

  /** Notes a stream; the returned function forgets it. */
  add(replicaId: string): () => void {
    const subscriber = { replicaId, since: new Date() };
    this.open.add(subscriber);
    return () => this.open.delete(subscriber);
  }

  list(): Subscriber[] {
    return [...this.open].sort((a, b) => a.replicaId.localeCompare(b.replicaId) || a.since.getTime() - b.since.getTime());
  }
}
