// A few pages under /console/, routed in the browser (the control plane answers every such address with
// the app). Links are real <a href>s: they open in a new tab and work from the keyboard.
import { useEffect, useState } from "react";

export const BASE = "/console";

export interface Place {
  page: string;
  params: URLSearchParams;
}

const here = (): Place => ({
  page: window.location.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, "") || "projects",
  params: new URLSearchParams(window.location.search),
});

export function navigate(href: string): void {
  window.history.pushState(null, "", href);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function usePlace(): Place {
  const [place, setPlace] = useState(here);
  useEffect(() => {
    const update = () => setPlace(here());
    window.addEventListener("popstate", update);
    return () => window.removeEventListener("popstate", update);
  }, []);
  return place;
}

export const hrefOf = (page: string, params: Record<string, string> = {}) => {
  const query = new URLSearchParams(params).toString();
  return `${BASE}/${page}${query ? `?${query}` : ""}`;
};

export function Link(props: { page: string; params?: Record<string, string>; children: React.ReactNode; current?: boolean }) {
  const href = hrefOf(props.page, props.params);
  return (
    <a
      href={href}
      aria-current={props.current ? "page" : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {props.children}
    </a>
  );
}
