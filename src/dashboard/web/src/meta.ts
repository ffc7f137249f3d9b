/** What the server says about itself (`/api/meta`), shared by every page through a context. */
import { createContext, useContext } from 'react';

export interface Meta {
  version: string;
  allowActions: boolean;
  dataDir: string;
  features: { sessions: boolean };
}

export const MetaContext = createContext<Meta | undefined>(undefined);
export const useMeta = () => useContext(MetaContext);
